// Virtual calls through the vtables clang emits: each object reaches only
// its own class's override, so results of two different overrides do not
// alias.
#include "aliascheck.h"

int a, b, c;

struct Shape {
  virtual int *data() = 0;
  virtual ~Shape() {}
};
struct Circle : Shape {
  int *data() override { return &a; }
};
struct Square : Shape {
  int *data() override { return &b; }
};
struct Tri : Square {
  int *data() override { return &c; }
};

static int *through(Shape *s) { return s->data(); }

int main() {
  Circle ci;
  Square sq;
  Shape *p = &ci;
  Shape *q = &sq;
  int *x = p->data();
  int *y = q->data();
  MUSTALIAS(x, &a);
  MUSTALIAS(y, &b);
  NOALIAS(x, y);
  // The helper is only ever given a Tri.
  Tri t;
  int *z = through(&t);
  MUSTALIAS(z, &c);
  NOALIAS(z, &a);
  return 0;
}
