/* Explicit memcpy of a struct into a heap block and of a pointer array. */
#include <stdlib.h>
#include <string.h>
#include "aliascheck.h"

struct pair {
  int *left;
  int *right;
};

int main(void) {
  int l = 0, r = 0, e = 0;
  struct pair src = {&l, &r};
  struct pair *dst = malloc(sizeof *dst);
  if (!dst)
    return 1;
  memcpy(dst, &src, sizeof src);
  /* dst->left receives src.left = {l}. */
  MUSTALIAS(dst->left, &l);
  /* dst->right receives src.right = {r}: field-wise copy keeps them apart. */
  NOALIAS(dst->left, dst->right);
  int *arr[2] = {&e, &e};
  int *copy[2];
  memcpy(copy, arr, sizeof arr);
  /* copy receives the contents of arr: {e}. */
  MAYALIAS(copy[1], &e);
  /* copy is a different object from arr. */
  NOALIAS(copy, arr);
  /* copy's contents are {e}; dst's are {l, r}. */
  NOALIAS(copy[0], dst->right);
  free(dst);
  return 0;
}
