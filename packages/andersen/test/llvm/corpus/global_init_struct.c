/* Initialised global structs (with a nested struct) whose fields hold
 * pointers. */
#include "aliascheck.h"

int v1, v2, v3, v4;

struct inner {
  int *x;
  int *y;
};

struct config {
  const char *name;
  int *value;
  struct inner in;
};

struct config cfg = {"cfg", &v1, {&v2, &v3}};
struct config cfg2 = {.name = "other", .in = {.y = &v4}};

int main(void) {
  /* cfg.value is initialised with &v1. */
  MUSTALIAS(cfg.value, &v1);
  /* cfg.in.x = {v2}, cfg.in.y = {v3}: different fields, different targets. */
  NOALIAS(cfg.in.x, cfg.in.y);
  /* cfg.in.y is initialised with &v3. */
  MAYALIAS(cfg.in.y, &v3);
  /* cfg2.value has no initializer (NULL): empty set. */
  NOALIAS(cfg2.value, cfg.value);
  /* cfg2.in.y holds {v4}. */
  MAYALIAS(cfg2.in.y, &v4);
  /* cfg2.in.y is {v4}, cfg.in.y is {v3}. */
  NOALIAS(cfg2.in.y, cfg.in.y);
  /* The two name strings are different literals. */
  NOALIAS((void *)cfg.name, (void *)cfg2.name);
  return *cfg.value + *cfg.in.x;
}
