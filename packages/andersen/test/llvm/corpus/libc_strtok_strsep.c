/* strtok and strsep return pointers into the string they were given,
 * strtok's later calls (first argument NULL) too. */
#include <string.h>
#include "aliascheck.h"

char line[64] = "a b c";
char other[64];

int main(void) {
  char *first = strtok(line, " ");
  char *next = strtok(0, " ");
  MAYALIAS(first, line);
  MAYALIAS(next, line);
  NOALIAS(next, other);
  char local[16] = "x,y";
  char *cursor = local;
  char *tok = strsep(&cursor, ",");
  MAYALIAS(tok, local);
  NOALIAS(tok, other);
  return 0;
}
