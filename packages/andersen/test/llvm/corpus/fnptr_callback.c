/* A callback receives pointers from the function that calls it. */
#include "aliascheck.h"

typedef void (*visit_fn)(int *elem, void *ctx);

static void for_each(int *arr, int n, visit_fn f, void *ctx) {
  for (int i = 0; i < n; i++)
    f(&arr[i], ctx);
}

static int *last_seen;
static int *ctx_seen;

static void remember(int *elem, void *ctx) {
  last_seen = elem;
  ctx_seen = ctx;
}

int main(void) {
  int data[4] = {1, 2, 3, 4};
  int state = 0;
  int unrelated = 0;
  for_each(data, 4, remember, &state);
  /* The callback stored an element of data. */
  MAYALIAS(last_seen, &data[3]);
  /* ctx is &state. */
  MUSTALIAS(ctx_seen, &state);
  /* Elements and the context are different objects. */
  NOALIAS(last_seen, ctx_seen);
  /* unrelated is never passed to for_each. */
  NOALIAS(last_seen, &unrelated);
  return *last_seen + state + unrelated;
}
