/* A heap array of structs indexed by a variable: field a of every element
 * stays apart from field b of every element. */
#include <stdlib.h>
#include "aliascheck.h"

struct pair {
  int *a;
  int *b;
};

int x, y;

int main(int argc, char **argv) {
  (void)argv;
  struct pair *v = malloc(8 * sizeof *v);
  for (int i = 0; i < 8; i++) {
    v[i].a = &x;
    v[i].b = &y;
  }
  int k = argc % 8;
  /* Every element's a holds &x. */
  MAYALIAS(v[k].a, &x);
  MAYALIAS(v[0].a, v[k].a);
  /* a and b of any elements are different fields. */
  NOALIAS(&v[k].a, &v[0].b);
  NOALIAS(v[k].a, v[k].b);
  /* v + 1 is really &v[1]. */
  MUSTALIAS(v + 1, &v[1]);
  free(v);
  return 0;
}
