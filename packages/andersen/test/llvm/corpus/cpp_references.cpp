// References are pointers in the IR: binding, passing and returning them.
#include "aliascheck.h"

int x, y;

struct Box {
  int *p;
  int *q;
};

int *&slot(Box &b) { return b.q; }
void set(int *&r, int *v) { r = v; }

int main() {
  Box b{&x, nullptr};
  int *&r = slot(b);
  MUSTALIAS(&r, &b.q);
  NOALIAS(&r, &b.p);
  set(r, &y);
  MUSTALIAS(b.q, &y);
  NOALIAS(b.p, &y);
  int &rx = x;
  MUSTALIAS(&rx, &x);
  return 0;
}
