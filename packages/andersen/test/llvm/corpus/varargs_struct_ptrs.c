/* Struct pointers through varargs, and va_copy. */
#include <stdarg.h>
#include <stddef.h>
#include "aliascheck.h"

struct item {
  int *val;
  int weight;
};

static struct item *heaviest(int n, ...) {
  va_list ap, again;
  va_start(ap, n);
  va_copy(again, ap);
  struct item *best = NULL;
  for (int i = 0; i < n; i++) {
    struct item *it = va_arg(ap, struct item *);
    if (!best || it->weight > best->weight)
      best = it;
  }
  struct item *first = n > 0 ? va_arg(again, struct item *) : NULL;
  va_end(again);
  va_end(ap);
  return best ? best : first;
}

int main(void) {
  int v1 = 0, v2 = 0;
  struct item i1 = {&v1, 3};
  struct item i2 = {&v2, 7};
  struct item i3 = {&v1, 1};
  struct item *h = heaviest(2, &i1, &i2);
  /* The heavier one is i2. */
  MAYALIAS(h, &i2);
  /* i3 is never passed to heaviest. */
  NOALIAS(h, &i3);
  /* h->val is field 0 of i1 or i2: {v1, v2}. */
  MAYALIAS(h->val, &v2);
  /* &h->weight is field 1; &i1.val is field 0. */
  NOALIAS(&h->weight, &i1.val);
  return *h->val + i3.weight;
}
