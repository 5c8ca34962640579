/* Addresses of fields stored into memory and loaded back keep the field. */
#include "aliascheck.h"

struct s {
  int *f;
  int *g;
};

struct holder {
  int **slot;
};

int x, y;

int main(void) {
  struct s obj = {&x, &y};
  struct holder h;
  h.slot = &obj.g;
  int **back = h.slot;
  /* back is &obj.g. */
  MUSTALIAS(back, &obj.g);
  NOALIAS(back, &obj.f);
  /* Loading through it reads field g: &y. */
  MUSTALIAS(*back, &y);
  /* Not yet &x here, but the store below makes it so flow-insensitively. */
  EXPECTEDFAIL_NOALIAS(*back, &x);
  *back = &x;
  /* obj.g now may be &x too (flow-insensitively it always may). */
  MAYALIAS(obj.g, &x);
  return 0;
}
