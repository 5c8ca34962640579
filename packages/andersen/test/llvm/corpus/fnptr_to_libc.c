/* Library functions called through pointers: an allocator returns a block,
 * any other library function may return anything it was given. */
#include <stdlib.h>
#include <string.h>
#include "aliascheck.h"

char buf[32];
char other[32];

int main(int argc, char **argv) {
  (void)argv;
  void *(*alloc)(size_t) = malloc;
  char *(*copy)(char *, const char *) = strcpy;
  if (argc > 7) {
    alloc = 0;
    copy = 0;
  }
  void *block = alloc(16);
  char *dst = copy(buf, "hi");
  /* strcpy returns buf: through a pointer the analysis only knows it is unknown. */
  MAYALIAS(dst, buf);
  /* The block is not buf. */
  NOALIAS(block, buf);
  NOALIAS(block, other);
  free(block);
  return 0;
}
