// Multiple inheritance: an object holds two vtable pointers; a call through
// the second base reaches the derived override.
#include "aliascheck.h"

int a, b, c;

struct Left {
  virtual int *left() { return &c; }
};
struct Right {
  virtual int *right() { return &c; }
};
struct Both : Left, Right {
  int *left() override { return &a; }
  int *right() override { return &b; }
};

int main() {
  Both obj;
  Right *r = &obj;
  Left *l = &obj;
  int *x = r->right();
  int *y = l->left();
  MAYALIAS(x, &b);
  MAYALIAS(y, &a);
  int local = 0;
  NOALIAS(x, &local);
  NOALIAS(y, &local);
  return local;
}
