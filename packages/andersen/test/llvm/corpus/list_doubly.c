/* A circular doubly linked list with a sentinel on the stack. */
#include <stdlib.h>
#include "aliascheck.h"

struct dnode {
  struct dnode *prev;
  struct dnode *next;
  int *item;
};

static void link_after(struct dnode *pos, struct dnode *n) {
  n->prev = pos;
  n->next = pos->next;
  pos->next->prev = n;
  pos->next = n;
}

int main(void) {
  int i1 = 0, i2 = 0;
  struct dnode sentinel;
  sentinel.prev = sentinel.next = &sentinel;
  sentinel.item = NULL;
  struct dnode *a = malloc(sizeof *a);
  struct dnode *b = malloc(sizeof *b);
  if (!a || !b)
    return 1;
  a->item = &i1;
  b->item = &i2;
  link_after(&sentinel, a);
  link_after(a, b);
  /* After the links, sentinel.next is a. */
  MAYALIAS(sentinel.next, a);
  /* prev pointers may lead back to the sentinel (a->prev is &sentinel). */
  MAYALIAS(a->prev, &sentinel);
  /* b->next is really &sentinel: the list is circular. */
  MAYALIAS(b->next, &sentinel);
  /* Two malloc sites: a and b are different objects. */
  NOALIAS(a, b);
  /* item fields hold {i1} in a's object and {i2} in b's. */
  NOALIAS(a->item, b->item);
  /* prev (field 0) and item (field 2) are different fields. */
  NOALIAS(&a->prev, &a->item);
  int s = *a->item + *b->item;
  free(a);
  free(b);
  return s;
}
