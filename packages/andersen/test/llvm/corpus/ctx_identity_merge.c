/* Context-insensitivity: one function called from two places merges its
 * arguments and so its results. */
#include <stddef.h>
#include "aliascheck.h"

static int *id(int *p) { return p; }

static void store(int **slot, int *v) { *slot = v; }

int main(void) {
  int a = 0, b = 0, c = 0;
  int *ra = id(&a);
  int *rb = id(&b);
  /* ra really is &a. */
  MUSTALIAS(ra, &a);
  /* id's parameter holds {a, b}, so ra may be &b for this analysis. */
  EXPECTEDFAIL_NOALIAS(ra, rb);
  /* c never reaches id. */
  NOALIAS(ra, &c);
  int *s1 = NULL, *s2 = NULL;
  store(&s1, &a);
  store(&s2, &c);
  /* s1 really is &a. */
  MAYALIAS(s1, &a);
  /* store's slot holds {s1, s2} and v holds {a, c}: both get {a, c}. */
  EXPECTEDFAIL_NOALIAS(s1, s2);
  /* b is never stored. */
  NOALIAS(s2, &b);
  return *ra + *rb + *s1 + *s2;
}
