/* A function that returns a function pointer, and an indirect call that
 * returns a pointer argument through several hops. */
#include "aliascheck.h"

typedef int *(*transform)(int *, int *);

static int *take_first(int *a, int *b) { (void)b; return a; }
static int *take_second(int *a, int *b) { (void)a; return b; }

static transform choose(int which) {
  return which ? take_second : take_first;
}

int main(int argc, char **argv) {
  (void)argv;
  int x = 0, y = 0, z = 0;
  transform t = choose(argc > 2);
  int *r = t(&x, &y);
  /* choose may return either function; so r is &x or &y. */
  MAYALIAS(r, &x);
  /* take_second(&x, &y) returns &y. */
  MAYALIAS(r, &y);
  /* z never reaches either function. */
  NOALIAS(r, &z);
  /* t holds {take_first, take_second}. */
  MAYALIAS((void *)t, (void *)take_second);
  return *r + z;
}
