/* Pointer arithmetic through integers (align up, xor tricks) comes back as
 * the unknown object; untouched pointers stay exact. */
#include <stdint.h>
#include "aliascheck.h"

char pool[256];
int x, y;

int main(void) {
  uintptr_t at = (uintptr_t)(pool + 3);
  char *aligned = (char *)((at + 15) & ~(uintptr_t)15);
  /* aligned really points into pool. */
  MAYALIAS(aligned, pool);
  int *px = &x;
  int *py = &y;
  NOALIAS(px, py);
  uintptr_t mix = (uintptr_t)px ^ (uintptr_t)py;
  int *back = (int *)(mix ^ (uintptr_t)py);
  /* back is really &x. */
  MAYALIAS(back, &x);
  return 0;
}
