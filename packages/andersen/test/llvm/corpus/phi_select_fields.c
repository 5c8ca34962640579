/* A pointer that selects between two fields of one struct stays inside
 * those fields. */
#include "aliascheck.h"

struct three {
  int a;
  int b;
  int c;
};

int main(int argc, char **argv) {
  (void)argv;
  struct three t = {1, 2, 3};
  int *p = argc > 1 ? &t.a : &t.b;
  /* p is t.a or t.b. */
  MAYALIAS(p, &t.b);
  /* &t is offset 0 = t.a. */
  MAYALIAS(p, &t);
  /* t.c is never selected. */
  NOALIAS(p, &t.c);
  int x = 0;
  int *q = argc > 2 ? p : &x;
  /* q may be x. */
  MAYALIAS(q, &x);
  /* q is {t.a, t.b, x}, not t.c. */
  NOALIAS(q, &t.c);
  return *p + *q;
}
