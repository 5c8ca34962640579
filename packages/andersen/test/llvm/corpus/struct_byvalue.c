/* Structs passed and returned by value (on x86-64 a two-pointer struct is
 * returned in registers as an aggregate { ptr, ptr } and stored back to
 * memory by the caller). */
#include "aliascheck.h"

struct two {
  int *a;
  int *b;
};

static struct two make(int *p, int *q) {
  struct two t;
  t.a = p;
  t.b = q;
  return t;
}

static int *second(struct two t) { return t.b; }

int main(void) {
  int x = 0, y = 0, z = 0;
  int *pz = &z;
  struct two r = make(&x, &y);
  /* make stores p = &x into t.a, and t is returned into r. */
  MAYALIAS(r.a, &x);
  /* make stores q = &y into t.b. */
  MAYALIAS(r.b, &y);
  /* second(r) returns r.b, a copy of {y}. */
  int *s = second(r);
  /* second(r) returns r.b, a copy of {y}. */
  MAYALIAS(s, &y);
  /* Nothing in this program stores &z anywhere but pz. */
  NOALIAS(s, pz);
  /* r.a is {x}; pz is {z}. */
  NOALIAS(r.a, pz);
  return *r.a + *s + *pz;
}
