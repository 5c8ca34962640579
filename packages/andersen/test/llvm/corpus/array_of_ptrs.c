/* An array of pointers: stores into any element flow out of every element. */
#include "aliascheck.h"

int main(void) {
  int x = 0, y = 0, z = 0;
  int *arr[3];
  arr[0] = &x;
  arr[1] = &y;
  int *other[2];
  other[0] = &z;
  other[1] = &z;
  int *p0 = arr[0];
  int *p1 = arr[1];
  /* arr[1] really holds &y. */
  MAYALIAS(p1, &y);
  /* Collapsed: arr[0] and arr[1] share one location holding {x, y}, so
   * p0 = arr[0] may point to y although it never does. */
  EXPECTEDFAIL_NOALIAS(p0, p1);
  /* other holds only {z}; arr holds {x, y}. */
  NOALIAS(p0, other[1]);
  /* The two arrays are different objects. */
  NOALIAS(&arr[0], &other[0]);
  return *p0 + *p1 + *other[0];
}
