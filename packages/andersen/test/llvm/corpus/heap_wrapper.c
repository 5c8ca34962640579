/* A malloc wrapper: one malloc call inside, so every result of the wrapper
 * is the same abstract object (context-insensitive). */
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
  /* Different blocks at run time, one object for this analysis. */
  EXPECTEDFAIL_NOALIAS(p, q);
  int *direct = malloc(sizeof(int));
  /* A direct malloc in main is a different site. */
  NOALIAS(direct, p);
  struct obj *o = xmalloc(sizeof(struct obj));
  o->f = &x;
  o->g = &y;
  /* Fields stay apart even in the shared wrapper object. */
  NOALIAS(o->f, o->g);
  /* p's block and o's block are the same abstract object: its field 0 holds
   * {x} (o->f = &x), so p and &o->f may alias. */
  EXPECTEDFAIL_NOALIAS(p, &o->f);
  free(direct);
  free(o);
  free(q);
  free(p);
  return 0;
}
