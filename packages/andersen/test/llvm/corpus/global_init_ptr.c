/* Global pointers with initializers that take addresses of other globals. */
#include "aliascheck.h"

int ga, gb, gc;
int *pa = &ga;
int *pb = &gb;
int **ppa = &pa;
int *pc; /* zero-initialised: holds nothing until main stores &gc */

int main(void) {
  pc = &gc;
  /* The initializer of pa is &ga. */
  MUSTALIAS(pa, &ga);
  /* pa holds {ga}, pb holds {gb}. */
  NOALIAS(pa, pb);
  /* ppa's initializer is &pa, so *ppa reads pa = {ga}. */
  MAYALIAS(*ppa, &ga);
  /* ppa is initialised with &pa. */
  MUSTALIAS(ppa, &pa);
  /* pc holds {gc} (stored in main). */
  NOALIAS(pc, pa);
  /* main stores &gc into pc. */
  MAYALIAS(pc, &gc);
  return *pa + *pb + *pc;
}
