/* pthread_create calls its start routine with its last argument. */
#include <pthread.h>
#include "aliascheck.h"

struct job {
  int *in;
  int *out;
};

int x, y, z;
static struct job *running;

static void *worker(void *arg) {
  running = arg;
  return running->out;
}

int main(void) {
  struct job j = {&x, &y};
  pthread_t t;
  pthread_create(&t, 0, worker, &j);
  void *res;
  pthread_join(t, &res);
  /* The worker got &j. */
  MUSTALIAS(running, &j);
  MUSTALIAS(running->in, &x);
  NOALIAS(running->in, &z);
  return 0;
}
