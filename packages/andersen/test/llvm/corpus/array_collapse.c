/* Arrays are collapsed: all elements of an array are one location. */
#include "aliascheck.h"

int main(void) {
  int a[8];
  int b[8];
  for (int i = 0; i < 8; i++) {
    a[i] = i;
    b[i] = -i;
  }
  /* Real alias: element 0 and the array start are the same address. */
  MUSTALIAS(&a[0], a);
  /* Collapsed array: &a[0] and &a[1] are one location (a smarter,
   * index-sensitive analysis would say no). */
  EXPECTEDFAIL_NOALIAS(&a[0], &a[1]);
  /* Two different arrays are two different objects. */
  NOALIAS(&a[3], &b[3]);
  int *p = a + 5;
  /* Pointer arithmetic stays inside the (collapsed) array. */
  MAYALIAS(p, &a[5]);
  /* p stays inside a; b is another object. */
  NOALIAS(p, b);
  return a[2] + b[2] + *p;
}
