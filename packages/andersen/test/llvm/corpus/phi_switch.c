/* A switch with several pointer-valued arms. */
#include "aliascheck.h"

static int ga, gb, gc, gd;

static int *choose(int k) {
  int *r;
  switch (k) {
  case 0:
    r = &ga;
    break;
  case 1:
    r = &gb;
    break;
  case 2:
    r = &gc;
    break;
  default:
    r = &ga;
    break;
  }
  return r;
}

int main(int argc, char **argv) {
  (void)argv;
  int *p = choose(argc);
  /* Any arm may be taken. */
  MAYALIAS(p, &gb);
  /* choose(2) returns &gc. */
  MAYALIAS(p, &gc);
  /* gd is not returned by choose. */
  NOALIAS(p, &gd);
  return *p + gd;
}
