/* A growable buffer whose storage comes from one realloc site in a helper;
 * the buffer header is a separate malloc. */
#include <stdlib.h>
#include "aliascheck.h"

struct buf {
  int **data;
  int len;
  int cap;
};

static void push(struct buf *b, int *x) {
  if (b->len == b->cap) {
    int cap = b->cap ? 2 * b->cap : 4;
    int **nd = realloc(b->data, (size_t)cap * sizeof *nd);
    if (!nd)
      exit(1);
    b->data = nd;
    b->cap = cap;
  }
  b->data[b->len++] = x;
}

int main(void) {
  int x = 0, y = 0, z = 0;
  struct buf *b = malloc(sizeof *b);
  if (!b)
    return 1;
  b->data = NULL;
  b->len = b->cap = 0;
  push(b, &x);
  push(b, &y);
  /* The storage is the realloc site's object; the header is malloc's. */
  NOALIAS(b->data, b);
  /* Both pushes store into the realloc object (the one realloc happens while
   * the buffer is empty, so no contents need to move): {x, y}. */
  MAYALIAS(b->data[1], &y);
  /* z is never pushed. */
  NOALIAS(b->data[0], &z);
  /* data (field 0) is at the header's address; len (field 1) is not. */
  MAYALIAS(&b->data, b);
  NOALIAS(&b->len, b);
  int s = *b->data[0] + *b->data[1] + z;
  free(b->data);
  free(b);
  return s;
}
