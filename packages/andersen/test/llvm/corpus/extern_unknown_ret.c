/* A call to a function that is declared but not defined in the module: its
 * result is the unknown object, which may-aliases everything. */
#include "aliascheck.h"

/* Not defined anywhere in this program: opaque library code. */
extern void *lib_lookup(const char *key);
extern void lib_register(const char *key, void *value);

int main(void) {
  int a = 0, b = 0, c = 0;
  lib_register("a", &a);
  void *found = lib_lookup("a");
  /* The library may hand back what it was given. */
  MAYALIAS(found, &a);
  /* Unknown may-aliases everything, even b, which the library never saw. */
  EXPECTEDFAIL_NOALIAS(found, &b);
  /* Pointers that never met the library keep exact sets. */
  int *pb = &b;
  int *pc = &c;
  /* pb is {b}, pc is {c}. */
  NOALIAS(pb, pc);
  return a + *pb + *pc;
}
