/* Steps backwards by an amount known only at run time: `p - n` on an element
 * pointer, a negative variable byte offset, container_of with an offset kept
 * in a variable. The constraint language has no negative offset, so each may
 * point to unknown: never to nothing, never only to the fields after. */
#include <stddef.h>
#include "aliascheck.h"

struct item {
  int *value;
  int *tag;
  int *last;
};

struct node {
  struct node *next;
};

struct holder {
  int *payload;
  struct node link;
};

int main(int argc, char **argv) {
  (void)argv;
  int v = 0, t = 0, l = 0;
  struct item it = {&v, &t, &l};
  int **lastp = &it.last;
  /* 2 when the program runs without arguments: back is &it.value. */
  size_t n = (size_t)argc + 1;
  int **back = lastp - n;
  MAYALIAS(back, &it.value);
  MAYALIAS(*back, &v);
  /* -8 without arguments: first is &it.value. */
  char *bytes = (char *)&it.tag;
  long delta = -(long)sizeof(int *) * argc;
  int **first = (int **)(bytes + delta);
  MAYALIAS(first, &it.value);
  MAYALIAS(*first, &v);
  /* container_of with the member's offset in a variable. */
  struct holder h = {&v, {NULL}};
  size_t off = offsetof(struct holder, link) * (size_t)argc;
  struct holder *owner = (struct holder *)((char *)&h.link - off);
  MAYALIAS(owner, &h);
  MAYALIAS(owner->payload, &v);
  /* A forward step by a count stays precise: the later fields only. */
  int **ahead = &it.value + (size_t)argc;
  MAYALIAS(ahead, &it.tag);
  NOALIAS(ahead, &l + 1);
  return **back + **first + *owner->payload + **ahead + t + l;
}
