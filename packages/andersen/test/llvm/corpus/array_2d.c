/* Two-dimensional arrays and arrays inside structs are collapsed too. */
#include "aliascheck.h"

struct buf {
  int *slots[4];
  int *extra;
};

int main(void) {
  int m[3][3];
  int a = 0, b = 0, c = 0;
  struct buf s;
  s.slots[0] = &a;
  s.slots[3] = &b;
  s.extra = &c;
  m[0][0] = 1;
  m[2][2] = 2;
  /* Every element of m is one location (really different elements). */
  EXPECTEDFAIL_NOALIAS(&m[0][0], &m[2][2]);
  /* The row pointer m[1] and the element m[1][0] are the same address. */
  MUSTALIAS(m[1], &m[1][0]);
  /* The array s.slots is the first field of s: slots[k] for any k is one
   * location, and it differs from s.extra. */
  NOALIAS(&s.slots[2], &s.extra);
  /* slots is the first field of s: offset 0 of s. */
  MAYALIAS(&s.slots[0], &s);
  /* slots hold {a, b}; extra holds {c}. */
  NOALIAS(s.slots[3], s.extra);
  /* s.slots[3] really holds &b. */
  MAYALIAS(s.slots[3], &b);
  return m[0][0] + m[2][2] + *s.slots[0] + *s.extra;
}
