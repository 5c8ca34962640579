/* Fields written through a struct pointer passed to a function. */
#include "aliascheck.h"

struct node {
  int *data;
  int *aux;
};

static void fill(struct node *n, int *d, int *x) {
  n->data = d;
  n->aux = x;
}

int main(void) {
  int a = 0, b = 0;
  struct node n1;
  fill(&n1, &a, &b);
  /* fill stores d = &a into n1.data. */
  MAYALIAS(n1.data, &a);
  /* fill stores x = &b into n1.aux; data and aux are different fields. */
  NOALIAS(n1.data, n1.aux);
  /* aux only ever receives &b. */
  NOALIAS(n1.aux, &a);
  return *n1.data + *n1.aux;
}
