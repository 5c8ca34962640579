/* A malloc wrapper that keeps no pointer to its block: each call site of
 * the wrapper gets an object of its own, as a call of malloc would. */
#include <stdlib.h>
#include "aliascheck.h"

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p)
    abort();
  return p;
}

struct obj {
  int *f;
  int *g;
};

int main(void) {
  int x = 0, y = 0;
  int *p = xmalloc(sizeof(int));
  int *q = xmalloc(sizeof(int));
  /* Different blocks at run time, and for this analysis. */
  NOALIAS(p, q);
  int *direct = malloc(sizeof(int));
  /* A direct malloc in main is a different site. */
  NOALIAS(direct, p);
  struct obj *o = xmalloc(sizeof(struct obj));
  o->f = &x;
  o->g = &y;
  /* Fields stay apart. */
  NOALIAS(o->f, o->g);
  /* p's block and o's block are different objects. */
  NOALIAS(p, &o->f);
  free(direct);
  free(o);
  free(q);
  free(p);
  return 0;
}
