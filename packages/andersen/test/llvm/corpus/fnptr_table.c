/* A global table of function pointers, called through a computed index. */
#include "aliascheck.h"

static int sa, sb, sc;

static int *get_a(int *in) { (void)in; return &sa; }
static int *get_b(int *in) { (void)in; return &sb; }
static int *pass(int *in) { return in; }

static int *(*const ops[])(int *) = {get_a, get_b, pass};

static int *never_called(int *in) { (void)in; return &sc; }

int main(int argc, char **argv) {
  (void)argv;
  int local = 0;
  int *r = ops[argc % 3](&local);
  /* Any of the three functions may run. */
  MAYALIAS(r, &sa);
  /* get_b returns &sb. */
  MAYALIAS(r, &sb);
  /* pass returns its argument &local. */
  MAYALIAS(r, &local);
  /* never_called is not in the table: sc is not returned. */
  NOALIAS(r, &sc);
  /* The table holds {get_a, get_b, pass}; never_called is elsewhere. */
  NOALIAS((void *)ops[0], (void *)never_called);
  return *r + *never_called(&local);
}
