/* Mutual recursion passing pointers back and forth. */
#include "aliascheck.h"

static int *even(int n, int *e, int *o);
static int *odd(int n, int *e, int *o);

static int *even(int n, int *e, int *o) {
  if (n == 0)
    return e;
  return odd(n - 1, e, o);
}

static int *odd(int n, int *e, int *o) {
  if (n == 0)
    return o;
  return even(n - 1, e, o);
}

int main(int argc, char **argv) {
  (void)argv;
  int ev = 0, od = 0, none = 0;
  int *r = even(argc, &ev, &od);
  /* Depending on parity, r is &ev or &od. */
  MAYALIAS(r, &ev);
  /* With an odd argc, r is &od. */
  MAYALIAS(r, &od);
  /* none is never passed. */
  NOALIAS(r, &none);
  return *r + none;
}
