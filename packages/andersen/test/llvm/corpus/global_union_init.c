/* A global union initialized through a member: clang writes the
 * constant with the member's shape, which code then reads through the
 * union's declared type. */
#include "aliascheck.h"

int x, y;

struct two {
  int *a;
  int *b;
};

union u {
  struct two t;
  long words[2];
};

union u g = {.t = {&x, &y}};

struct padded {
  char c;
  int *p;
  short s;
  int *q;
};

struct padded gp = {'a', &x, 1, &y};

int main(void) {
  MUSTALIAS(g.t.a, &x);
  MUSTALIAS(g.t.b, &y);
  NOALIAS(g.t.a, &y);
  MUSTALIAS(gp.p, &x);
  MUSTALIAS(gp.q, &y);
  NOALIAS(gp.q, &x);
  return 0;
}
