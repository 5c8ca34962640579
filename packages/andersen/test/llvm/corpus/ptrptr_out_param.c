/* Out-parameters: a function writes its results through T** arguments. */
#include <stdlib.h>
#include "aliascheck.h"

static int make_pair(int **first, int **second) {
  *first = malloc(sizeof(int));
  *second = malloc(sizeof(int));
  return *first && *second;
}

static void borrow(int **out, int *from) { *out = from; }

int main(void) {
  int *a = NULL, *b = NULL, *c = NULL;
  int local = 0;
  if (!make_pair(&a, &b))
    return 1;
  /* Two malloc sites inside make_pair. */
  NOALIAS(a, b);
  borrow(&c, &local);
  /* c is &local after borrow. */
  MUSTALIAS(c, &local);
  /* a holds the first site only. */
  NOALIAS(a, c);
  free(a);
  free(b);
  return *c;
}
