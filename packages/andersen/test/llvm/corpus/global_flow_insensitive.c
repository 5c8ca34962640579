/* Flow-insensitivity: a global pointer reassigned later holds both targets
 * at every point of the program. */
#include "aliascheck.h"

int *g;
int x, y, z;

static int *read_g(void) { return g; }

int main(void) {
  g = &x;
  int *first = read_g();
  /* At run time first is &x. */
  MAYALIAS(first, &x);
  g = &y;
  int *second = read_g();
  /* At run time second is &y. */
  MAYALIAS(second, &y);
  /* Flow-insensitive: g holds {x, y} everywhere, so first may point to y. */
  EXPECTEDFAIL_NOALIAS(first, &y);
  /* z is never stored into g. */
  NOALIAS(first, &z);
  /* g holds {x, y}, never z. */
  NOALIAS(second, &z);
  return *first + *second + z;
}
