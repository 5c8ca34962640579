// Lambdas capturing by reference are structs of pointers passed to a
// template that calls them.
#include "aliascheck.h"

int x, y;

template <typename F> int *apply(F f) { return f(); }

int main() {
  int *p = &x;
  int *q = &y;
  int *r = apply([&] { return p; });
  int *s = apply([&] { return q; });
  // Two lambdas are two types: two instantiations of apply.
  MUSTALIAS(r, &x);
  MUSTALIAS(s, &y);
  NOALIAS(r, s);
  return 0;
}
