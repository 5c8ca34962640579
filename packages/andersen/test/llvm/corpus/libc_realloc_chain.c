/* realloc may return the block it was given or a new one; the contents
 * are not modelled as copied, but the block keeps what was stored. */
#include <stdlib.h>
#include "aliascheck.h"

int x, y;

int main(void) {
  int **v = malloc(2 * sizeof *v);
  v[0] = &x;
  int **w = realloc(v, 4 * sizeof *w);
  /* w may be v itself. */
  MAYALIAS(w, v);
  w[1] = &y;
  MAYALIAS(w[0], &x);
  int local = 0;
  NOALIAS(w, &local);
  free(w);
  return local;
}
