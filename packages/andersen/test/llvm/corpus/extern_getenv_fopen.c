/* getenv returns memory the C library owns, fopen a new object per call site:
 * neither is memory of the program's own variables. */
#include <stdio.h>
#include <stdlib.h>
#include "aliascheck.h"

struct settings {
  const char *home;
  int *level;
};

int main(void) {
  int lvl = 3;
  struct settings s;
  s.home = getenv("HOME");
  s.level = &lvl;
  FILE *f = fopen("/dev/null", "r");
  /* The environment and a new FILE are different objects. */
  NOALIAS((void *)s.home, f);
  /* The environment is no variable of the program. */
  NOALIAS((void *)s.home, &lvl);
  /* s.level holds only {lvl}. */
  MUSTALIAS(s.level, &lvl);
  /* &s.home and &s.level are different fields of s. */
  NOALIAS(&s.home, &s.level);
  if (f)
    fclose(f);
  return *s.level;
}
