/* Function pointers stored in struct fields (an "object with methods"). */
#include <stdlib.h>
#include "aliascheck.h"

struct stream {
  void *state;
  void *(*get_state)(struct stream *self);
  void (*set_state)(struct stream *self, void *st);
};

static void *stream_get(struct stream *self) { return self->state; }
static void stream_set(struct stream *self, void *st) { self->state = st; }

int main(void) {
  int s1 = 0, s2 = 0;
  struct stream *s = malloc(sizeof *s);
  if (!s)
    return 1;
  s->state = &s1;
  s->get_state = stream_get;
  s->set_state = stream_set;
  s->set_state(s, &s2);
  void *st = s->get_state(s);
  /* After set_state the state is &s2. */
  MAYALIAS(st, &s2);
  /* Flow-insensitive: the state field holds {s1, s2}. */
  EXPECTEDFAIL_NOALIAS(st, &s1);
  /* The method fields hold functions, not data. */
  NOALIAS((void *)s->get_state, st);
  /* get_state holds {stream_get}, set_state holds {stream_set}. */
  NOALIAS((void *)s->get_state, (void *)s->set_state);
  /* self is s: &self->state is the heap object's field 0. */
  MAYALIAS(&s->state, s);
  free(s);
  return 0;
}
