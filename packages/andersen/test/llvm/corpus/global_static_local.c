/* Function-local static variables are globals; a function returning the
 * address of its static returns the same object from every call. */
#include "aliascheck.h"

static int *counter(void) {
  static int n;
  n++;
  return &n;
}

static int *other_counter(void) {
  static int m;
  m += 2;
  return &m;
}

int main(void) {
  int *c1 = counter();
  int *c2 = counter();
  /* Really the same address every time. */
  MUSTALIAS(c1, c2);
  int *o = other_counter();
  /* Two different statics. */
  NOALIAS(c1, o);
  int local = 0;
  /* A local is not a static. */
  NOALIAS(&local, c2);
  return *c1 + *o + local;
}
