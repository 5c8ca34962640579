/* libc string and memory functions by summary: results point into an
 * argument. */
#include <string.h>
#include "aliascheck.h"

char buf[64];
char other[64];

int main(void) {
  char local[32] = "hello, world";
  char *d = strcpy(buf, local);
  /* strcpy returns its destination. */
  MUSTALIAS(d, buf);
  NOALIAS(d, local);
  char *m = memchr(local, 'w', sizeof local);
  /* memchr points into its first argument. */
  MAYALIAS(m, local);
  NOALIAS(m, buf);
  char *c = strcat(buf, "!");
  MUSTALIAS(c, buf);
  char *s = strstr(other, "x");
  MAYALIAS(s, other);
  NOALIAS(s, local);
  return 0;
}
