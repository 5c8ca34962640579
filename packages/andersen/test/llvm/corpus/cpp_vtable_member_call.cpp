// Objects stored in a container of base pointers and called in a loop: each
// element's call reaches the overrides of the classes stored.
#include "aliascheck.h"

int a, b, c;

struct Op {
  virtual int *run() = 0;
};
struct OpA : Op {
  int *run() override { return &a; }
};
struct OpB : Op {
  int *run() override { return &b; }
};
struct OpC : Op {
  int *run() override { return &c; }
};

int main() {
  OpA oa;
  OpB ob;
  OpC oc;
  Op *ops[2] = {&oa, &ob};
  int *r = nullptr;
  for (Op *op : ops) r = op->run();
  // r is the last element's result: &b (a flow-insensitive analysis keeps &a).
  EXPECTEDFAIL_NOALIAS(r, &a);
  MUSTALIAS(r, &b);
  // OpC is never stored in ops.
  NOALIAS(r, &c);
  Op *single = &oc;
  NOALIAS(single->run(), r);
  return 0;
}
