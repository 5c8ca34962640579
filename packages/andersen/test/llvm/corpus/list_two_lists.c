/* Two lists whose nodes come from two different allocation sites stay
 * apart; a shared push function would merge them. */
#include <stdlib.h>
#include "aliascheck.h"

struct node {
  struct node *next;
  int *val;
};

static struct node *push_a(struct node *head, int *v) {
  struct node *n = malloc(sizeof *n);
  if (!n)
    exit(1);
  n->next = head;
  n->val = v;
  return n;
}

static struct node *push_b(struct node *head, int *v) {
  struct node *n = malloc(sizeof *n);
  if (!n)
    exit(1);
  n->next = head;
  n->val = v;
  return n;
}

static struct node *last(struct node *l) {
  while (l->next)
    l = l->next;
  return l;
}

int main(void) {
  int x = 0, y = 0;
  struct node *la = push_a(push_a(NULL, &x), &x);
  struct node *lb = push_b(push_b(NULL, &y), &y);
  /* Different malloc sites. */
  NOALIAS(la, lb);
  /* la->val holds {x}, lb->val holds {y}. */
  NOALIAS(la->val, lb->val);
  /* last() is called with both lists: context-insensitive, its result
   * merges nodes of both. */
  struct node *ea = last(la);
  struct node *eb = last(lb);
  /* ea and eb are last nodes of different lists, but last() merges both lists. */
  EXPECTEDFAIL_NOALIAS(ea, eb);
  /* ea really is a node of la (its last node). */
  MAYALIAS(ea, la->next);
  /* &la->next is field 0 of la's object: the same location as la. */
  MUSTALIAS(&la->next, la);
  return *ea->val + *eb->val;
}
