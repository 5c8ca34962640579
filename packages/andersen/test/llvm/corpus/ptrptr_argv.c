/* main's argv (memory the program did not allocate) and pointers into a
 * local array of strings. */
#include "aliascheck.h"

static const char *names[] = {"alpha", "beta"};

int main(int argc, char **argv) {
  const char *local[2];
  local[0] = names[0];
  local[1] = argc > 1 ? argv[1] : names[1];
  const char **pl = local;
  /* pl is the start of the array local. */
  MUSTALIAS(pl, &local[0]);
  /* Collapsed array: element 1 is the same location as element 0. */
  EXPECTEDFAIL_NOALIAS(pl, &local[1]);
  /* local holds a name literal (and maybe argv[1]). */
  MAYALIAS((void *)pl[0], (void *)names[0]);
  /* names is a global array; local is a stack array. */
  NOALIAS((void *)names, (void *)local);
  return argc;
}
