/* Distinct scalar fields of one local struct are distinct locations. */
#include "aliascheck.h"

struct pair {
  int *first;
  int *second;
};

int main(void) {
  int a = 1, b = 2;
  struct pair s;
  s.first = &a;
  s.second = &b;
  int *x = s.first;
  int *y = s.second;
  /* s.first only ever holds &a: pts(x) = {a}. */
  MUSTALIAS(x, &a);
  /* Field-sensitive: s.first holds {a}, s.second holds {b}; disjoint. */
  NOALIAS(x, y);
  /* The addresses of two different fields are two different locations. */
  NOALIAS(&s.first, &s.second);
  /* &s and &s.first are the same location (first field, offset 0). */
  MAYALIAS(&s, &s.first);
  return *x + *y;
}
