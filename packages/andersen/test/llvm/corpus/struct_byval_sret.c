/* Large structs passed by value (byval) and returned through a hidden
 * pointer (sret). */
#include "aliascheck.h"

struct big {
  int *p;
  int *q;
  long pad[4];
};

int x, y;

struct big make(int *p, int *q) {
  struct big b = {p, q, {0, 0, 0, 0}};
  return b;
}

int *first(struct big b) { return b.p; }
int *second(struct big b) { return b.q; }

int main(void) {
  struct big b = make(&x, &y);
  /* The returned struct carries the arguments field by field. */
  MUSTALIAS(b.p, &x);
  MUSTALIAS(b.q, &y);
  NOALIAS(b.p, &y);
  int *f = first(b);
  int *s = second(b);
  MUSTALIAS(f, &x);
  MUSTALIAS(s, &y);
  NOALIAS(f, s);
  return 0;
}
