/* A va_list handed to a second function that reads the arguments. */
#include <stdarg.h>
#include "aliascheck.h"

struct slot {
  int *p;
  int *q;
};

static void vfill(struct slot *s, va_list ap) {
  s->p = va_arg(ap, int *);
  s->q = va_arg(ap, int *);
}

static void fill(struct slot *s, ...) {
  va_list ap;
  va_start(ap, s);
  vfill(s, ap);
  va_end(ap);
}

int main(void) {
  int x = 0, y = 0, z = 0;
  struct slot s;
  fill(&s, &x, &y);
  /* s.p is really &x and s.q is really &y. */
  MAYALIAS(s.p, &x);
  /* The second variadic argument is &y. */
  MAYALIAS(s.q, &y);
  /* z is never passed. */
  NOALIAS(s.p, &z);
  /* z is never a variadic argument. */
  NOALIAS(s.q, &z);
  /* The fields themselves are different locations. */
  NOALIAS(&s.p, &s.q);
  return *s.p + *s.q + z;
}
