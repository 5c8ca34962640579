// Templates: each instantiation is its own function in the IR, so two
// instantiations do not share parameters.
#include "aliascheck.h"

template <typename T> struct Holder {
  T *item;
  void put(T *p) { item = p; }
  T *get() { return item; }
};

template <typename T> T *identity(T *p) { return p; }

int i1, i2;
double d1;

int main() {
  Holder<int> hi;
  Holder<double> hd;
  hi.put(&i1);
  hd.put(&d1);
  MUSTALIAS(hi.get(), &i1);
  NOALIAS(hi.get(), &d1);
  MUSTALIAS(hd.get(), &d1);
  int *a = identity(&i1);
  double *b = identity(&d1);
  // identity<int> and identity<double> are different functions.
  NOALIAS(a, b);
  int *c = identity(&i2);
  // The same instantiation merges its calls.
  EXPECTEDFAIL_NOALIAS(a, c);
  return 0;
}
