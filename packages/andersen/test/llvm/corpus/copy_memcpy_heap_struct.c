/* memcpy and memmove of structs holding pointers, between the stack and the
 * heap; memset leaves no pointer behind. */
#include <stdlib.h>
#include <string.h>
#include "aliascheck.h"

struct node {
  int *val;
  struct node *next;
  int *aux;
};

int x, y, z;

int main(void) {
  struct node n = {&x, 0, &y};
  struct node *h = malloc(sizeof *h);
  memcpy(h, &n, sizeof n);
  /* The heap copy holds the same pointers, field by field. */
  MUSTALIAS(h->val, &x);
  MUSTALIAS(h->aux, &y);
  NOALIAS(h->val, &y);
  struct node m;
  memmove(&m, h, sizeof m);
  MUSTALIAS(m.aux, &y);
  NOALIAS(m.aux, &x);
  struct node zero;
  memset(&zero, 0, sizeof zero);
  zero.aux = &z;
  /* zero.val was only ever NULL. */
  NOALIAS(zero.aux, &x);
  free(h);
  return 0;
}
