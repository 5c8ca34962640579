/* memset writes no pointers: a zeroed struct's fields point to nothing
 * until something is stored into them. */
#include <string.h>
#include <stdlib.h>
#include "aliascheck.h"

struct opts {
  int *in;
  int *out;
  int *err;
};

int main(void) {
  int i = 0, o = 0;
  struct opts op;
  memset(&op, 0, sizeof op);
  op.in = &i;
  op.out = &o;
  /* op.err was only zeroed: empty set. */
  NOALIAS(op.err, op.in);
  /* op.err is empty; an empty set aliases nothing. */
  NOALIAS(op.err, &o);
  /* op.in holds {i}. */
  MUSTALIAS(op.in, &i);
  int **vec = calloc(4, sizeof(int *));
  if (!vec)
    return 1;
  memset(vec, 0, 4 * sizeof(int *));
  vec[2] = &o;
  /* vec's block holds {o}. */
  MAYALIAS(vec[2], op.out);
  /* vec's block holds {o}; op.in holds {i}. */
  NOALIAS(vec[0], op.in);
  free(vec);
  return *op.in + *op.out;
}
