/* A struct field that points to another struct, and field addresses taken
 * through that pointer. */
#include "aliascheck.h"

struct point {
  int x;
  int y;
};

struct holder {
  struct point *pt;
  int *py;
};

int main(void) {
  struct point p1 = {1, 2};
  struct point p2 = {3, 4};
  struct holder h;
  h.pt = &p1;
  h.py = &p2.y;
  struct point *q = h.pt;
  /* h.pt holds {p1}: q is &p1, i.e. p1's first field. */
  MUSTALIAS(q, &p1);
  /* &q->x is field 0 of p1, the same location as &p1. */
  MAYALIAS(&q->x, &p1);
  /* &q->y is field 1 of p1: different from field 0. */
  NOALIAS(&q->y, &p1.x);
  /* h.py holds {p2.y}; &q->y is p1.y: different objects. */
  NOALIAS(h.py, &q->y);
  /* h.py is exactly &p2.y. */
  MAYALIAS(h.py, &p2.y);
  /* p2.y and p2.x are different fields of p2. */
  NOALIAS(h.py, &p2.x);
  return q->x + *h.py;
}
