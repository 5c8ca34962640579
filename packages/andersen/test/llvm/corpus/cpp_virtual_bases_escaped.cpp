// Virtual calls through virtual bases on objects that escaped to unknown code.
// Reaching a virtual base moves `this` by an offset read from before the
// vtable's address point, which may be negative: the model sends such a step
// to unknown, so those calls are not bounded by the vtables the program
// stored (the object they land in is not known), and stay sound. Calls
// without a virtual-base step keep their own overrides.
#include "aliascheck.h"

int a, b, c, e;

struct A {
  virtual int *fa() { return &a; }
  virtual ~A() {}
};
struct B : virtual A {
  int *fa() override { return &b; }
};
struct C : virtual A {
  virtual int *fc() { return &c; }
};
struct D : B, C {
  int *fc() override { return &e; }
};

extern "C" void observe(void *);

int main() {
  D d;
  observe(&d);
  A *pa = &d;
  int *x = pa->fa();
  MAYALIAS(x, &b);
  C *pc = &d;
  // Through C's virtual base A of d (at a negative offset from C): B::fa.
  int *y = pc->fa();
  MAYALIAS(y, &b);
  int *z = pc->fc();
  MAYALIAS(z, &e);
  C c1;
  observe(&c1);
  C *r = &c1;
  int *u = r->fc();
  MUSTALIAS(u, &c);
  // c1 is a C: D::fc is not its override.
  NOALIAS(u, &e);
  int *t = r->fa();
  MAYALIAS(t, &a);
  return *x + *y + *z + *u + *t;
}
