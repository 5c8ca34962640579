/* An int * into a struct field indexed past it (undefined in C, common in
 * real code and in the classic suites): it may reach every later field. */
#include "aliascheck.h"

struct rec {
  int a;
  int b;
  int *p;
};

int x, y;

int pick(int *base, int i) { return base[i]; }

int main(int argc, char **argv) {
  (void)argv;
  struct rec r = {1, 2, &x};
  int *fa = &r.a;
  int *one = fa + 1;
  int *any = fa + argc;
  /* fa + 1 is really &r.b. */
  MAYALIAS(one, &r.b);
  /* fa + argc may be any later field. */
  MAYALIAS(any, &r.b);
  MAYALIAS(any, &r.p);
  /* Stepping from a separate object stays in it: y is not r. */
  NOALIAS(any, &y);
  return pick(&r.a, argc) + *one;
}
