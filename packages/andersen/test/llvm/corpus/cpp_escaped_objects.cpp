// Virtual calls on objects that escaped to unknown code, without clang's type
// tests: only a constructor sets an object's vtable pointer, so unknown code
// that is given an object may call its virtual functions but does not change
// which ones they are. An object that unknown code made, or that a constructor
// the module only declares built, may be of any class: its calls reach unknown
// code.
#include "aliascheck.h"

int a, b, c, g;

struct Shape {
  virtual int *data() { return &g; }
  virtual int *other() { return &c; }
  virtual ~Shape() {}
};
struct Circle : Shape {
  int *data() override { return &a; }
};
struct Square : Shape {
  int *data() override { return &b; }
};
// Its constructor and its virtual functions are defined in another file.
struct Remote : Shape {
  Remote();
  int *data() override;
};

// Unknown code: it may keep the objects and call their virtual functions.
extern "C" void observe(Shape *);
// Unknown code that makes an object of a class it alone may know.
extern "C" Shape *make_shape(int);

static int *data_of(Shape *s) { return s->data(); }

int main(int argc, char **) {
  Circle circle;
  Square square;
  observe(&circle);
  observe(&square);
  Shape *p = &circle;
  Shape *q = &square;
  int *x = p->data();
  int *y = q->data();
  // Each object keeps the vtable its constructor stored.
  MUSTALIAS(x, &a);
  MUSTALIAS(y, &b);
  // Two different overrides, although both objects escaped.
  NOALIAS(x, y);
  NOALIAS(x, &g);
  // The slot the call names: Shape::other, not an override of data.
  int *o = p->other();
  MUSTALIAS(o, &c);
  NOALIAS(o, &a);
  // Through a helper that both objects reach: both overrides.
  int *h = data_of(argc > 1 ? p : q);
  MAYALIAS(h, &a);
  MAYALIAS(h, &b);
  NOALIAS(h, &g);
  // An object of unknown code: any class, any override.
  Shape *u = make_shape(argc);
  int *z = u->data();
  MAYALIAS(z, &a);
  MAYALIAS(z, &g);
  // An object whose constructor is elsewhere: its calls reach unknown code.
  Remote remote;
  Shape *r = &remote;
  int *w = r->data();
  MAYALIAS(w, &a);
  MAYALIAS(w, &b);
  return *x + *y + *o + *h + *z + *w;
}
