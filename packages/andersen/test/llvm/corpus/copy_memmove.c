/* memmove between two struct objects and inside one array. */
#include <string.h>
#include "aliascheck.h"

struct slot {
  int *p;
  int *q;
};

int main(void) {
  int a = 0, b = 0, c = 0;
  struct slot s1 = {&a, &b};
  struct slot s2;
  memmove(&s2, &s1, sizeof s1);
  /* s2.p receives s1.p = {a}; s2.q receives s1.q = {b}. */
  MAYALIAS(s2.p, &a);
  /* Field-wise copy: s2.p gets {a} only, s2.q gets {b} only. */
  NOALIAS(s2.p, s2.q);
  int *ring[4] = {&a, &b, &c, 0};
  memmove(&ring[1], &ring[0], 3 * sizeof ring[0]);
  /* ring[1] really becomes &a. */
  MAYALIAS(ring[1], &a);
  /* s2.q holds {b}; &c only ever lives in ring. */
  NOALIAS(s2.q, &c);
  return *s2.p + *s2.q + *ring[1];
}
