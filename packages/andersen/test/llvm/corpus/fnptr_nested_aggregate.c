/* Function pointers in nested aggregates of a constant global: a table of
 * structs each holding a struct of handlers. */
#include "aliascheck.h"

int a, b, c;

static int *get_a(void) { return &a; }
static int *get_b(void) { return &b; }
static int *get_c(void) { return &c; }

struct handlers {
  int *(*open)(void);
  int *(*close)(void);
};

struct device {
  int id;
  struct handlers h;
  const char *name;
};

static const struct device devices[2] = {
    {1, {get_a, get_b}, "one"},
    {2, {get_a, get_c}, "two"},
};

static const struct device single = {3, {get_b, get_c}, "three"};

int main(int argc, char **argv) {
  (void)argv;
  const struct device *d = &devices[argc % 2];
  int *o = d->h.open();
  int *cl = d->h.close();
  /* open is get_a in both elements. */
  MUSTALIAS(o, &a);
  NOALIAS(o, &b);
  /* close is get_b or get_c (elements collapsed). */
  MAYALIAS(cl, &b);
  MAYALIAS(cl, &c);
  NOALIAS(cl, &a);
  int *so = single.h.open();
  /* single's open is get_b only. */
  MUSTALIAS(so, &b);
  NOALIAS(so, &c);
  return 0;
}
