/* Whole-struct assignment becomes llvm.memcpy; the copy is field by field. */
#include "aliascheck.h"

struct rec {
  int *a;
  int *b;
  long pad[2];
  int *c;
};

int main(void) {
  int x = 0, y = 0, z = 0;
  struct rec s;
  s.a = &x;
  s.b = &y;
  s.pad[0] = s.pad[1] = 0;
  s.c = &z;
  struct rec t;
  t = s; /* memcpy(&t, &s, sizeof s) */
  /* t.a receives s.a = {x}. */
  MAYALIAS(t.a, &x);
  /* t.c receives s.c = {z}. */
  MAYALIAS(t.c, &z);
  /* Field-wise copy: t.a gets only s.a, t.b only s.b. */
  NOALIAS(t.a, t.b);
  /* t.b gets s.b = {y}, t.c gets s.c = {z}. */
  NOALIAS(t.b, t.c);
  /* t and s are different objects. */
  NOALIAS(&t.a, &s.a);
  return *t.a + *t.b + *t.c;
}
