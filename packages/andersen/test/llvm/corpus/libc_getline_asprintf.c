/* getline and asprintf store a new block through their first argument. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include "aliascheck.h"

char fixed[16];

int main(void) {
  char *line = 0;
  size_t cap = 0;
  getline(&line, &cap, stdin);
  char *msg = 0;
  asprintf(&msg, "%d", 3);
  /* Two calls, two blocks. */
  NOALIAS(line, msg);
  NOALIAS(line, fixed);
  char *again = line;
  MUSTALIAS(again, line);
  free(line);
  free(msg);
  return 0;
}
