// Constructors that call helpers: a helper that makes no indirect call (at any
// depth) cannot run a virtual function of the object under construction, so a
// derived constructor's vtable still replaces its base's. A helper that makes
// a virtual call on the object sees the base's override while the base is
// being constructed.
#include "aliascheck.h"

int a, b, g, h, d;
int counter;

static void count(int k) { counter += k; }
static void note(int k) { count(k * 2); }

struct Shape {
  Shape() { note(1); }
  virtual int *data() { return &g; }
  virtual ~Shape() {}
};
struct Circle : Shape {
  Circle() { note(2); }
  int *data() override { return &a; }
};
struct Square : Shape {
  Square() { count(3); }
  int *data() override { return &b; }
};

// A base whose constructor runs a virtual function through a helper.
struct Base;
static int *seen;
static void remember(Base *self);
struct Base {
  Base() { remember(this); }
  virtual int *get() { return &h; }
  virtual ~Base() {}
};
static void remember(Base *self) { seen = self->get(); }
struct Derived : Base {
  Derived() { count(4); }
  int *get() override { return &d; }
};

int main() {
  Shape *p = new Circle;
  Shape *q = new Square;
  int *x = p->data();
  int *y = q->data();
  MUSTALIAS(x, &a);
  MUSTALIAS(y, &b);
  // The helpers make no indirect call: each object holds its own vtable only.
  NOALIAS(x, y);
  NOALIAS(x, &g);
  NOALIAS(y, &g);
  Derived derived;
  Base *r = &derived;
  int *z = r->get();
  MUSTALIAS(z, &d);
  // During Base(), remember() calls Base::get.
  MUSTALIAS(seen, &h);
  // Base() keeps its vtable in the object: after construction only Derived::get
  // runs, but a flow-insensitive analysis cannot tell.
  EXPECTEDFAIL_NOALIAS(z, &h);
  delete p;
  delete q;
  return *x + *y + *z + *seen + counter;
}
