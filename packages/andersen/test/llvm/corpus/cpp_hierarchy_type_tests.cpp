// corpus-flags: -flto -fwhole-program-vtables -fvisibility=hidden
// With clang's type tests (whole-program vtables, hidden LTO visibility), a
// virtual call on an object that unknown code made reaches only the overrides
// in the static type's subtree, not unknown code; an object the program made
// keeps the overrides of its own class.
#include "aliascheck.h"

int a, b, c, d;

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
// An unrelated hierarchy.
struct Other {
  virtual int *get() { return &c; }
  virtual ~Other() {}
};

// The program's objects of each class (so that every vtable is in the module,
// as whole-program vtables require, at every optimisation level).
Circle circle;
Square square;
Other other;

// Unknown code: returns some Shape (the type test says so).
extern "C" Shape *make_shape(int);

int main(int argc, char **) {
  Shape *s = make_shape(argc);
  int *x = s->data();
  // s is unknown, but the type test bounds its vtable to Shape's subtree.
  MAYALIAS(x, &a);
  MAYALIAS(x, &b);
  // Other::get is no override of Shape::data.
  NOALIAS(x, &c);
  NOALIAS(x, &d);
  Shape *q = &square;
  int *y = q->data();
  // square's own vtable only.
  MUSTALIAS(y, &b);
  NOALIAS(y, &a);
  return *x + *y + *other.get() + *circle.data() + d;
}
