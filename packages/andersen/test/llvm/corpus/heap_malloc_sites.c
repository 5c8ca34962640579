/* Each malloc call instruction is one heap object, shared by every
 * execution of it. */
#include <stdlib.h>
#include "aliascheck.h"

int main(void) {
  int *p = malloc(sizeof(int));
  int *q = malloc(sizeof(int));
  /* Two different allocation sites: two different objects. */
  NOALIAS(p, q);
  int *cells[4];
  for (int i = 0; i < 4; i++)
    cells[i] = malloc(sizeof(int)); /* one site, executed four times */
  /* Same site: one abstract object for all four blocks. */
  EXPECTEDFAIL_NOALIAS(cells[0], cells[1]);
  /* The loop's site differs from the sites of p and q. */
  NOALIAS(cells[2], p);
  int *r = p;
  /* A copy of p points to p's block. */
  MUSTALIAS(r, p);
  *p = 1;
  *q = 2;
  int s = *r + *q + *cells[3];
  free(p);
  free(q);
  for (int i = 0; i < 4; i++)
    free(cells[i]);
  return s;
}
