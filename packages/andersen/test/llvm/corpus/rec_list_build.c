/* A list built and searched by recursive functions. */
#include <stdlib.h>
#include "aliascheck.h"

struct cell {
  int *item;
  struct cell *rest;
};

static struct cell *build(int **items, int n) {
  if (n == 0)
    return NULL;
  struct cell *c = malloc(sizeof *c);
  if (!c)
    exit(1);
  c->item = items[0];
  c->rest = build(items + 1, n - 1);
  return c;
}

static int *nth(struct cell *c, int k) {
  if (k == 0)
    return c->item;
  return nth(c->rest, k - 1);
}

int main(void) {
  int a = 0, b = 0, c = 0, stranger = 0;
  int *items[3] = {&a, &b, &c};
  struct cell *l = build(items, 3);
  int *second = nth(l, 1);
  /* The second item is &b. */
  MAYALIAS(second, &b);
  /* stranger is never in the list. */
  NOALIAS(second, &stranger);
  /* rest of a cell is another cell (one malloc site). */
  EXPECTEDFAIL_NOALIAS(l, l->rest);
  /* item (field 0) and rest (field 1) are different fields. */
  NOALIAS(&l->item, &l->rest);
  return *second + stranger;
}
