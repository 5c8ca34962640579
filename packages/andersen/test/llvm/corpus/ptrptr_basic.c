/* Writing through a pointer to a pointer. */
#include "aliascheck.h"

int main(void) {
  int a = 0, b = 0, c = 0;
  int *p = &a;
  int *q = &c;
  int **pp = &p;
  *pp = &b;
  int *now = p;
  /* p really is &b now. */
  MAYALIAS(now, &b);
  /* Flow-insensitive: p's location holds {a, b}, so now may be &a. */
  EXPECTEDFAIL_NOALIAS(now, &a);
  /* q is never written through pp. */
  NOALIAS(q, now);
  /* pp is exactly &p. */
  MUSTALIAS(*pp, p);
  /* pp is {p}, not q. */
  NOALIAS(pp, &q);
  return *now + *q;
}
