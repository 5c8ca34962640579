/* Copying a nested struct member copies only that part of the object. */
#include "aliascheck.h"

struct inner {
  int *u;
  int *v;
};

struct outer {
  int *head;
  struct inner in;
  int *tail;
};

int main(void) {
  int h = 0, u = 0, v = 0, t = 0, w = 0;
  struct outer a;
  a.head = &h;
  a.in.u = &u;
  a.in.v = &v;
  a.tail = &t;
  struct inner copy = a.in; /* memcpy from the middle of a */
  /* copy.u receives a.in.u = {u}. */
  MAYALIAS(copy.u, &u);
  /* copy.v receives a.in.v = {v}. */
  MAYALIAS(copy.v, &v);
  /* Neither head nor tail is copied into copy. */
  NOALIAS(copy.u, &h);
  /* a.tail lies outside the copied range a.in. */
  NOALIAS(copy.v, &t);
  struct outer b;
  b.head = &w;
  b.tail = &w;
  b.in = copy; /* memcpy into the middle of b */
  /* b.in.u receives copy.u = {u}. */
  MAYALIAS(b.in.u, &u);
  /* b.head keeps {w}; the copy does not touch it. */
  NOALIAS(b.head, b.in.u);
  return *b.head + *b.in.v + *a.tail;
}
