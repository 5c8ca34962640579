// A derived constructor stores its vtable over the one its base's
// constructor stored: each object reaches only its own class's override,
// even when the base's is not pure. Members are objects of their own.
#include "aliascheck.h"

int ga, gb, gbase;

struct Base {
  virtual int *f() { return &gbase; }
  virtual ~Base() {}
};
struct A : Base {
  int *f() override { return &ga; }
};
struct B : Base {
  int *f() override { return &gb; }
};
struct Holder {
  A member;
  Base plain;
};

int main() {
  Base *a = new A;
  Base *b = new B;
  // Two different overrides: no alias.
  NOALIAS(a->f(), b->f());
  MUSTALIAS(a->f(), &ga);
  Base base;
  Base *pb = &base;
  MUSTALIAS(pb->f(), &gbase);
  Holder h;
  Base *hm = &h.member;
  Base *hp = &h.plain;
  MUSTALIAS(hm->f(), &ga);
  MUSTALIAS(hp->f(), &gbase);
  NOALIAS(hm->f(), &gbase);
  delete a;
  delete b;
  return 0;
}
