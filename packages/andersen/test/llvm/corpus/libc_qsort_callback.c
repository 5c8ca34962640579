/* qsort and bsearch call their comparison with pointers into the array. */
#include <stdlib.h>
#include "aliascheck.h"

static int *seen_a;
static int *seen_b;
int keys[8];
int elsewhere;

static int cmp(const void *a, const void *b) {
  seen_a = (int *)a;
  seen_b = (int *)b;
  return *(const int *)a - *(const int *)b;
}

int main(void) {
  qsort(keys, 8, sizeof keys[0], cmp);
  /* The comparison saw elements of keys. */
  MAYALIAS(seen_a, keys);
  MAYALIAS(seen_b, &keys[3]);
  NOALIAS(seen_a, &elsewhere);
  int key = 3;
  int *found = bsearch(&key, keys, 8, sizeof keys[0], cmp);
  /* bsearch returns an element of the array, and passes the key. */
  MAYALIAS(found, keys);
  MAYALIAS(seen_a, &key);
  NOALIAS(found, &elsewhere);
  return found != 0;
}
