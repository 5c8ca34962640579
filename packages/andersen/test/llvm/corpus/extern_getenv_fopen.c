/* getenv and fopen return memory the program did not allocate: unknown. */
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
  /* Both results are unknown: may alias each other as far as we know. */
  EXPECTEDFAIL_NOALIAS((void *)s.home, f);
  /* s.level holds only {lvl}. */
  MUSTALIAS(s.level, &lvl);
  /* &s.home and &s.level are different fields of s. */
  NOALIAS(&s.home, &s.level);
  if (f)
    fclose(f);
  return *s.level;
}
