/* A generic container of void* elements: the element type is lost, the
 * targets are not. */
#include <stdlib.h>
#include "aliascheck.h"

struct vec {
  void **items;
  int len;
};

static void vec_push(struct vec *v, void *x) {
  v->items[v->len++] = x;
}

static void *vec_get(struct vec *v, int i) { return v->items[i]; }

int main(void) {
  int a = 0;
  double d = 0;
  long never = 0;
  struct vec v;
  v.len = 0;
  v.items = malloc(4 * sizeof(void *));
  if (!v.items)
    return 1;
  vec_push(&v, &a);
  vec_push(&v, &d);
  int *pa = vec_get(&v, 0);
  double *pd = vec_get(&v, 1);
  /* Really &a and &d. */
  MAYALIAS(pa, &a);
  /* pd really is &d. */
  MAYALIAS(pd, &d);
  /* One items array (collapsed), one vec_get: both results are {a, d}. */
  EXPECTEDFAIL_NOALIAS(pa, pd);
  /* never is never pushed: items hold {a, d}. */
  NOALIAS(pa, &never);
  /* The items buffer is not the vec. */
  NOALIAS(v.items, &v);
  free(v.items);
  return *pa + (int)*pd + (int)never;
}
