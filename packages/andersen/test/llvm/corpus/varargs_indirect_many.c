/* A variadic function called through a pointer with several variadic
 * arguments: every one of them reaches its va_arg reads. */
#include <stdarg.h>
#include "aliascheck.h"

int a, b, c, d;
static int *last;

static void keep_all(int n, ...) {
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) last = va_arg(ap, int *);
  va_end(ap);
}

static void ignore(int n, ...) { (void)n; }

void (*handler)(int, ...) = keep_all;

int main(int argc, char **argv) {
  (void)argv;
  if (argc > 5) handler = ignore;
  handler(3, &a, &b, &c);
  /* The third variadic argument reaches keep_all too. */
  MAYALIAS(last, &c);
  MAYALIAS(last, &a);
  NOALIAS(last, &d);
  return 0;
}
