/* Function pointers passed through varargs and called. */
#include <stdarg.h>
#include "aliascheck.h"

int a, b;

static int *ret_a(void) { return &a; }
static int *ret_b(void) { return &b; }

typedef int *(*getter)(void);

static int *call_nth(int n, ...) {
  va_list ap;
  va_start(ap, n);
  getter g = 0;
  for (int i = 0; i <= n; i++) g = va_arg(ap, getter);
  va_end(ap);
  return g();
}

int main(int argc, char **argv) {
  (void)argv;
  int *r = call_nth(argc % 2, ret_a, ret_b);
  /* Either getter may be called. */
  MAYALIAS(r, &a);
  MAYALIAS(r, &b);
  int local;
  NOALIAS(r, &local);
  return local = 0;
}
