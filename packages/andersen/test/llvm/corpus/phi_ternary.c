/* Ternaries and if/else joins become phi nodes (or selects). */
#include "aliascheck.h"

int main(int argc, char **argv) {
  (void)argv;
  int a = 0, b = 0, c = 0;
  int *p = argc > 1 ? &a : &b;
  /* p is &a or &b. */
  MAYALIAS(p, &a);
  /* p is &b when argc <= 1. */
  MAYALIAS(p, &b);
  /* c is not a choice. */
  NOALIAS(p, &c);
  int *q;
  if (argc > 3)
    q = &c;
  else
    q = p;
  /* q is &c, &a or &b. */
  MAYALIAS(q, &c);
  /* q is p when argc <= 3. */
  MAYALIAS(q, p);
  int *r = argc & 1 ? &c : &c;
  /* Both arms are &c. */
  MUSTALIAS(r, &c);
  /* r is {c}; p is {a, b}. */
  NOALIAS(r, p);
  return *p + *q + *r;
}
