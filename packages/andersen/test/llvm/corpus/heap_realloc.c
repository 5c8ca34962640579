/* realloc is an allocation site: its result is a new abstract object. */
#include <stdlib.h>
#include "aliascheck.h"

int main(void) {
  int x = 0, y = 0;
  int **vec = malloc(2 * sizeof(int *));
  if (!vec)
    return 1;
  vec[0] = &x;
  int **grown = realloc(vec, 8 * sizeof(int *));
  if (!grown)
    return 1;
  /* Stored after the realloc, so no contents need to move. */
  grown[5] = &y;
  /* realloc may return the same block it was given: the model's result is a
   * fresh object and also whatever its argument pointed to. */
  MAYALIAS(grown, vec);
  /* grown[5] really holds &y. */
  MAYALIAS(grown[5], &y);
  int *other = malloc(sizeof(int));
  /* A third allocation site. */
  NOALIAS(other, grown);
  /* grown points to a heap object, never to the local x. */
  NOALIAS(grown, &x);
  free(other);
  free(grown);
  return 0;
}
