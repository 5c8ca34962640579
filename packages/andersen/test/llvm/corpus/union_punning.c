/* A union read through a member other than the one written: the pointer
 * written as one member is read back through the other. */
#include "aliascheck.h"

struct as_ptrs {
  int *first;
  int *second;
};

struct as_mixed {
  long tag;
  int *payload;
};

union view {
  struct as_ptrs p;
  struct as_mixed m;
};

int x, y;

int main(void) {
  union view v;
  v.p.first = &x;
  v.p.second = &y;
  int *payload = v.m.payload;
  /* payload is the second pointer: both sit at byte 8. */
  MAYALIAS(payload, &y);
  int *first = v.p.first;
  MAYALIAS(first, &x);
  int local = 0;
  NOALIAS(payload, &local);
  return local;
}
