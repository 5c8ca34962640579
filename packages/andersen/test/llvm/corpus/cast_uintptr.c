/* Policy: a ptrtoint converted straight back is its pointer; integer
 * arithmetic on an address (tagging) yields the unknown object, which
 * may-aliases everything. */
#include <stdint.h>
#include "aliascheck.h"

int main(void) {
  int a = 0, b = 0, c = 0;
  uintptr_t bits = (uintptr_t)&a;
  int *back = (int *)bits;
  /* Really &a. */
  MAYALIAS(back, &a);
  /* Converted straight back: exactly &a. */
  NOALIAS(back, &b);
  /* Pointers that never went through an integer keep exact sets. */
  int *pb = &b;
  int *pc = &c;
  /* pb is {b}, pc is {c}: no unknown in either. */
  NOALIAS(pb, pc);
  uintptr_t tagged = (uintptr_t)&c | 1u;
  int *untagged = (int *)(tagged & ~(uintptr_t)1);
  /* Pointer tagging: really &c. */
  MAYALIAS(untagged, pc);
  return *back + *pb + *untagged;
}
