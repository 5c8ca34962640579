/* Two levels of allocation wrappers, and a constructor that returns an
 * initialised heap struct. */
#include <stdlib.h>
#include "aliascheck.h"

struct box {
  int *content;
  int *label;
};

static void *alloc_raw(size_t n) { return malloc(n); }
static void *alloc_zeroed(size_t n) { return calloc(1, n); }

static struct box *new_box(int *content) {
  struct box *b = alloc_raw(sizeof(struct box));
  if (b) {
    b->content = content;
    b->label = NULL;
  }
  return b;
}

int main(void) {
  int a = 0, c = 0;
  struct box *b1 = new_box(&a);
  struct box *b2 = new_box(&c);
  int *z = alloc_zeroed(sizeof(int));
  if (!b1 || !b2 || !z)
    return 1;
  /* new_box -> alloc_raw -> one malloc site: one object for both boxes. */
  EXPECTEDFAIL_NOALIAS(b1, b2);
  /* The calloc site inside alloc_zeroed is a different object. */
  NOALIAS(b1, z);
  /* new_box's parameter merges &a and &c: b1->content really is &a. */
  MAYALIAS(b1->content, &a);
  /* ... and the merge makes it {a, c}. */
  EXPECTEDFAIL_NOALIAS(b1->content, &c);
  /* label only ever holds NULL: an empty set aliases nothing. */
  NOALIAS(b1->label, b1->content);
  free(z);
  free(b2);
  free(b1);
  return 0;
}
