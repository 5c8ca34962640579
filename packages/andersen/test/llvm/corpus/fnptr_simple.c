/* An indirect call through a function pointer chosen at run time: the call
 * reaches every function the pointer may point to. */
#include "aliascheck.h"

static int *ident(int *p) { return p; }
static int *other(int *p) {
  (void)p;
  static int fixed;
  return &fixed;
}

int main(int argc, char **argv) {
  (void)argv;
  int a = 0, b = 0;
  int *(*fp)(int *) = argc > 1 ? ident : other;
  int *r = fp(&a);
  /* ident(&a) returns &a. */
  MAYALIAS(r, &a);
  /* b is never passed anywhere. */
  NOALIAS(r, &b);
  /* fp holds {ident, other}. */
  MAYALIAS((void *)fp, (void *)ident);
  int *(*only)(int *) = ident;
  /* only holds {ident}, never other. */
  NOALIAS((void *)only, (void *)other);
  return *r + b;
}
