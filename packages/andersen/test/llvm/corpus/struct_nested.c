/* Nested structs are flattened: every scalar field of the outer struct is
 * its own location; the first field of a nested struct shares its location
 * with the nested struct itself (and with the outer struct when it is first). */
#include "aliascheck.h"

struct inner {
  int *p;
  int *q;
};

struct outer {
  struct inner in;
  int *r;
  struct inner in2;
};

int main(void) {
  int a = 0, b = 0, c = 0, d = 0;
  struct outer o;
  o.in.p = &a;
  o.in.q = &b;
  o.r = &c;
  o.in2.p = &d;
  o.in2.q = &a;
  /* &o, &o.in and &o.in.p are all offset 0 of o: one location. */
  MAYALIAS(&o, &o.in.p);
  /* o.in starts at o (offset 0) and is smaller: same location here. */
  PARTIALALIAS(&o, &o.in);
  /* o.in.q (flattened field 1) and o.r (flattened field 2) differ. */
  NOALIAS(&o.in.q, &o.r);
  /* o.in2 starts at flattened field 3; its p is not o.in.p. */
  NOALIAS(&o.in2.p, &o.in.p);
  /* o.in.p holds {a}, o.in2.q holds {a}: same target. */
  MAYALIAS(o.in.p, o.in2.q);
  /* o.in.q holds {b}, o.r holds {c}. */
  NOALIAS(o.in.q, o.r);
  /* o.in2.p holds {d}, o.in.p holds {a}. */
  NOALIAS(o.in2.p, o.in.p);
  return *o.in.p + *o.r + *o.in2.p + *o.in.q;
}
