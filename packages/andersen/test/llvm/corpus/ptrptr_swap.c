/* A swap of two pointers through pointer-to-pointer parameters. */
#include "aliascheck.h"

static void swap(int **a, int **b) {
  int *t = *a;
  *a = *b;
  *b = t;
}

int main(void) {
  int x = 0, y = 0, z = 0;
  int *p = &x;
  int *q = &y;
  int *r = &z;
  swap(&p, &q);
  /* After the swap p is &y. */
  MAYALIAS(p, &y);
  /* After the swap q is &x. */
  MAYALIAS(q, &x);
  /* Flow-insensitive: p and q both hold {x, y}; here they are different. */
  EXPECTEDFAIL_NOALIAS(p, q);
  /* r is never passed to swap. */
  NOALIAS(r, p);
  /* r is {z}; q is {x, y}. */
  NOALIAS(r, q);
  return *p + *q + *r;
}
