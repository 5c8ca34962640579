/* Three levels of indirection. */
#include "aliascheck.h"

int main(void) {
  int x = 0, y = 0;
  int *p1 = &x;
  int *p2 = &y;
  int **pp1 = &p1;
  int **pp2 = &p2;
  int ***ppp = &pp1;
  int **got = *ppp;
  /* *ppp is pp1 = &p1. */
  MUSTALIAS(got, &p1);
  /* **ppp is p1 = &x. */
  MAYALIAS(**ppp, &x);
  /* p1 and p2 are different variables. */
  NOALIAS(got, pp2);
  /* **ppp = {x}, *pp2 = {y}. */
  NOALIAS(**ppp, *pp2);
  ***ppp = 5;
  return x + **pp2;
}
