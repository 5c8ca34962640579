/* A heap object holding a function pointer and its data, dispatched from
 * another function. */
#include <stdlib.h>
#include "aliascheck.h"

struct task {
  void *(*run)(void *);
  void *arg;
};

int x, y;

static void *identity(void *p) { return p; }

static struct task *task_new(void *(*run)(void *), void *arg) {
  struct task *t = malloc(sizeof *t);
  t->run = run;
  t->arg = arg;
  return t;
}

static void *dispatch(struct task *t) { return t->run(t->arg); }

int main(void) {
  struct task *t = task_new(identity, &x);
  void *r = dispatch(t);
  MUSTALIAS(r, &x);
  NOALIAS(r, &y);
  NOALIAS(t, &x);
  free(t);
  return 0;
}
