// Several virtual functions per class: a call loads the slot it names.
#include "aliascheck.h"

int a1, a2, b1, b2;

struct Base {
  virtual int *first() { return 0; }
  virtual int *second() { return 0; }
  virtual int *third() { return 0; }
};
struct A : Base {
  int *first() override { return &a1; }
  int *third() override { return &a2; }
};
struct B : Base {
  int *first() override { return &b1; }
  int *third() override { return &b2; }
};

int main(int argc, char **) {
  A a;
  B b;
  Base *p = argc > 1 ? static_cast<Base *>(&a) : static_cast<Base *>(&b);
  Base *only_a = &a;
  int *f = p->first();
  int *t = only_a->third();
  MAYALIAS(f, &a1);
  MAYALIAS(f, &b1);
  MUSTALIAS(t, &a2);
  // a's third is A::third only: never B's.
  NOALIAS(t, &b2);
  NOALIAS(t, &b1);
  return 0;
}
