/* An external function the analysis cannot see may write anything into what
 * it is given, and call any function whose address it gets. */
#include "aliascheck.h"

extern void mystery(int **slot);
extern void register_callback(void (*cb)(int *));

int x, y;
static int *seen;

static void on_event(int *p) { seen = p; }

int main(void) {
  int *p = &x;
  mystery(&p);
  /* mystery may have stored any pointer into p. */
  MAYALIAS(p, &y);
  register_callback(on_event);
  /* on_event may be called with anything. */
  MAYALIAS(seen, &x);
  int *untouched = &x;
  int *other = &y;
  NOALIAS(untouched, other);
  return 0;
}
