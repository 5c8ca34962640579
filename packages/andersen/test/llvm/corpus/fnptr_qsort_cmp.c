/* A user-defined generic sort calls a comparator through a pointer with
 * pointers into the array being sorted. */
#include "aliascheck.h"

typedef int (*cmp_fn)(const void *, const void *);

static const void *seen_left;
static const void *seen_right;

static int cmp_int(const void *l, const void *r) {
  seen_left = l;
  seen_right = r;
  return *(const int *)l - *(const int *)r;
}

static void sort(void *base, int n, int size, cmp_fn cmp) {
  char *b = base;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (cmp(b + i * size, b + j * size) > 0) {
        for (int k = 0; k < size; k++) {
          char t = b[i * size + k];
          b[i * size + k] = b[j * size + k];
          b[j * size + k] = t;
        }
      }
}

int main(void) {
  int v[5] = {5, 3, 1, 4, 2};
  int w = 0;
  sort(v, 5, (int)sizeof(int), cmp_int);
  /* Both comparator arguments point into v (collapsed). */
  MAYALIAS((void *)seen_left, &v[2]);
  /* Both point into v (really different elements; v is collapsed). */
  MAYALIAS((void *)seen_left, (void *)seen_right);
  /* w never reaches the sort. */
  NOALIAS((void *)seen_right, &w);
  return v[0] + w;
}
