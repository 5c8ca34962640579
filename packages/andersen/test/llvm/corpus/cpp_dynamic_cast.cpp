// A call through the result of dynamic_cast reaches the object's override.
#include "aliascheck.h"

int a, b;

struct Base {
  virtual ~Base() {}
};
struct A : Base {
  virtual int *get() { return &a; }
};
struct B : Base {
  virtual int *get() { return &b; }
};

int main(int argc, char **) {
  Base *obj = argc > 1 ? static_cast<Base *>(new A) : static_cast<Base *>(new B);
  int *r = nullptr;
  if (A *pa = dynamic_cast<A *>(obj)) {
    MAYALIAS(pa, obj);
    r = pa->get();
  }
  MAYALIAS(r, &a);
  int local = 0;
  NOALIAS(r, &local);
  delete obj;
  return local;
}
