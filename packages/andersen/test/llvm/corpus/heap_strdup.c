/* strdup is an allocation site; string literals are global objects. */
#include <stdlib.h>
#include <string.h>
#include "aliascheck.h"

int main(int argc, char **argv) {
  (void)argv;
  const char *lit = "hello";
  char *a = strdup(lit);
  char *b = strdup("world");
  if (!a || !b)
    return 1;
  /* Two strdup call sites: two objects. */
  NOALIAS(a, b);
  /* The copy is not the literal it copies. */
  NOALIAS(a, (void *)lit);
  char *c = a;
  /* A copy of a. */
  MUSTALIAS(c, a);
  char *d = argc > 1 ? a : b;
  /* d is a or b. */
  MAYALIAS(d, b);
  /* d is a when argc > 1. */
  MAYALIAS(d, a);
  int r = (int)strlen(c) + (int)strlen(d);
  free(a);
  free(b);
  return r;
}
