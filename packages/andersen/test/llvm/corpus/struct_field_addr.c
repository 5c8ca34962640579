/* Structs passed by pointer to helpers that return the address of a field. */
#include "aliascheck.h"

struct two {
  int *a;
  int *b;
};

static int **select_b(struct two *t) { return &t->b; }
static int **select_a(struct two *t) { return &t->a; }

int main(void) {
  int x = 0, y = 0;
  struct two t1;
  struct two t2;
  t1.a = &x;
  t1.b = &y;
  t2.a = &y;
  t2.b = &x;
  int **pb1 = select_b(&t1);
  int **pa2 = select_a(&t2);
  /* select_b is called once, with &t1: it returns &t1.b. */
  MAYALIAS(pb1, &t1.b);
  /* t1.b and t2.a are fields of different objects. */
  NOALIAS(pb1, pa2);
  /* select_a(&t2) is &t2.a, which is the same location as &t2. */
  MAYALIAS(pa2, &t2);
  /* *pb1 is t1.b = {y}; *pa2 is t2.a = {y}. */
  MAYALIAS(*pb1, *pa2);
  /* t1.a holds {x}, t1.b holds {y}. */
  NOALIAS(t1.a, *pb1);
  return **pb1 + **pa2;
}
