/* A local array of function pointers indexed by a variable. */
#include "aliascheck.h"

int a, b, c;

static int *fa(void) { return &a; }
static int *fb(void) { return &b; }
static int *fc(void) { return &c; }

int main(int argc, char **argv) {
  (void)argv;
  int *(*ops[2])(void) = {fa, fb};
  int *(*other)(void) = fc;
  int *r = ops[argc % 2]();
  MAYALIAS(r, &a);
  MAYALIAS(r, &b);
  NOALIAS(r, &c);
  int *s = other();
  MUSTALIAS(s, &c);
  NOALIAS(r, s);
  return 0;
}
