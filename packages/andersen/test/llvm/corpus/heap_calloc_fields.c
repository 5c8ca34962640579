/* Heap objects from calloc are field-sensitive like any other object. */
#include <stdlib.h>
#include "aliascheck.h"

struct entry {
  int *name;
  int *value;
  struct entry *next;
};

int main(void) {
  int n = 0, v = 0;
  struct entry *e = calloc(1, sizeof(struct entry));
  struct entry *f = calloc(1, sizeof(struct entry));
  if (!e || !f)
    return 1;
  e->name = &n;
  e->value = &v;
  e->next = f;
  /* The struct pointer is the address of its first field. */
  MAYALIAS(e, &e->name);
  /* Different fields of the same heap object. */
  NOALIAS(&e->name, &e->value);
  /* value (field 1) and next (field 2) differ. */
  NOALIAS(&e->value, &e->next);
  /* e->next holds {f's object}. */
  MUSTALIAS(e->next, f);
  /* Two calloc sites. */
  NOALIAS(e, f);
  /* name holds {n}, value holds {v}. */
  NOALIAS(e->name, e->value);
  int s = *e->name + *e->value;
  free(f);
  free(e);
  return s;
}
