/* libc functions that return pointers into their arguments (strchr,
 * strstr) are external: their results are unknown, which covers the real
 * alias with the argument. */
#include <string.h>
#include <stdlib.h>
#include "aliascheck.h"

int main(void) {
  char buf[32] = "key=value";
  char other[8] = "none";
  char *eq = strchr(buf, '=');
  /* strchr returns a pointer into buf. */
  MAYALIAS(eq, buf);
  char *sub = strstr(buf, "val");
  /* strstr returns &buf[4] ("val"): the model knows it points into its first argument. */
  MAYALIAS(sub, &buf[4]);
  /* ... and so not into other. */
  NOALIAS(sub, other);
  /* buf and other never went through an external function's result. */
  NOALIAS(buf, other);
  char *copy = strdup(buf);
  /* strdup is an allocation site, not an unknown function. */
  NOALIAS(copy, buf);
  /* The strdup object is not the array other. */
  NOALIAS(copy, other);
  int r = eq ? (int)(eq - buf) : 0;
  free(copy);
  return r;
}
