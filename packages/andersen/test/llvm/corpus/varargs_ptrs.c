/* Pointers passed through "..." and read back with va_arg. */
#include <stdarg.h>
#include "aliascheck.h"

static int *pick_last(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int *r = 0;
  for (int i = 0; i < n; i++)
    r = va_arg(ap, int *);
  va_end(ap);
  return r;
}

int main(void) {
  int a = 0, b = 0, c = 0, never = 0;
  int *r1 = pick_last(2, &a, &b);
  int *r2 = pick_last(1, &c);
  /* r1 really is &b. */
  MAYALIAS(r1, &b);
  /* r2 really is &c. */
  MAYALIAS(r2, &c);
  /* All variadic arguments of all calls merge: r1 may be &c. */
  EXPECTEDFAIL_NOALIAS(r1, r2);
  /* never is not passed to pick_last. */
  NOALIAS(r1, &never);
  return *r1 + *r2 + never;
}
