/* Globals initialized with nested constant expressions: the address of an
 * array element, of a field of a nested struct, and of an element of an
 * array inside a struct. */
#include "aliascheck.h"

struct inner {
  int k;
  int *p;
};

struct outer {
  int tag;
  struct inner in;
  int arr[4];
};

int x;
struct outer o = {1, {2, &x}, {0, 1, 2, 3}};
int data[8];

int *elem = &data[3];
int **field = &o.in.p;
int *inarr = &o.arr[2];
int *tagp = &o.tag;

int main(void) {
  /* Array elements are one location. */
  MAYALIAS(elem, &data[0]);
  /* field is &o.in.p, whose target is x. */
  MUSTALIAS(field, &o.in.p);
  MUSTALIAS(*field, &x);
  NOALIAS(field, tagp);
  MAYALIAS(inarr, &o.arr[0]);
  NOALIAS(inarr, tagp);
  NOALIAS(inarr, field);
  return 0;
}
