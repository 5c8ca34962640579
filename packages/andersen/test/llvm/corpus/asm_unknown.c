/* Inline assembly is an unknown call: its pointer result may be anything,
 * and memory reachable from its operands may be overwritten. */
#include "aliascheck.h"

int x, y, z;

int main(void) {
  int *p = &x;
  int *r;
  __asm__ volatile("mov %1, %0" : "=r"(r) : "r"(p));
  /* r really is &x; the analysis only knows it is unknown. */
  MAYALIAS(r, &x);
  int *cell = &y;
  int **where = &cell;
  __asm__ volatile("" : : "r"(where) : "memory");
  /* The assembly may have stored anything into cell. */
  MAYALIAS(cell, &z);
  int *untouched = &z;
  NOALIAS(untouched, &y);
  return *r;
}
