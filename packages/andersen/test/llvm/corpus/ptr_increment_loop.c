/* A pointer stepping through an array in a loop stays in the array. */
#include "aliascheck.h"

int arr[16];
int other[16];

int sum(int *p, int *end) {
  int s = 0;
  for (; p != end; p++) s += *p;
  return s;
}

int main(void) {
  int *p = arr;
  int *last = arr;
  for (int i = 0; i < 16; i++) last = p++;
  MAYALIAS(last, &arr[15]);
  MAYALIAS(p, arr);
  NOALIAS(last, other);
  return sum(arr, arr + 16) + sum(other, other + 16);
}
