// The program of callbacks.constraints.txt, in C with a heap-allocated list: data pointers and two handlers
// called through a function pointer. examples/andersen/points-to-c.ts compiles it with clang-16 and
// prints what each pointer may point to.
#include <stdlib.h>

struct node {
  struct node *next;
  void *data;
};
struct handler {
  void (*fn)(void *);
  void *arg;
};

static int a, b;
static struct node *head;
static void *seen_a, *seen_b;

void on_a(void *p) { seen_a = p; }
void on_b(void *p) { seen_b = p; }

void push(void *d) {
  struct node *n = malloc(sizeof *n);
  n->data = d;
  n->next = head;
  head = n;
}

void run(struct handler *h) { h->fn(h->arg); }

int main(void) {
  push(&a);
  push(&b);
  struct handler h1 = {on_a, head->data};
  struct handler h2 = {on_b, head->next->data};
  run(&h1);
  run(&h2);
  return 0;
}
