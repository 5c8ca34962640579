/* An initialised global struct of function pointers (a "vtable") shared by
 * two objects, each carrying its own data pointer. */
#include "aliascheck.h"

struct shape;

struct shape_ops {
  int *(*area_slot)(struct shape *self);
  struct shape *(*self_of)(struct shape *self);
};

struct shape {
  const struct shape_ops *ops;
  int *area;
};

static int *area_slot(struct shape *self) { return self->area; }
static struct shape *self_of(struct shape *self) { return self; }
static int *unused_slot(struct shape *self) { (void)self; return 0; }

static const struct shape_ops square_ops = {area_slot, self_of};

int main(void) {
  int a1 = 1, a2 = 4, other = 0;
  struct shape s1 = {&square_ops, &a1};
  struct shape s2 = {&square_ops, &a2};
  int *r1 = s1.ops->area_slot(&s1);
  /* square_ops.area_slot is area_slot: r1 reads s1.area = &a1. */
  MAYALIAS(r1, &a1);
  /* area_slot is called only with &s1: its self is {s1}, so r1 is {a1}. */
  NOALIAS(r1, &a2);
  struct shape *me = s2.ops->self_of(&s2);
  /* self_of(&s2) returns &s2. */
  MUSTALIAS(me, &s2);
  /* self_of is called only with &s2. */
  NOALIAS(me, &s1);
  /* r1 holds {a1}; other is never stored anywhere. */
  NOALIAS(r1, &other);
  /* The ops field holds {square_ops}; unused_slot is in no table. */
  NOALIAS((void *)s1.ops->area_slot, (void *)unused_slot);
  MAYALIAS((void *)s2.ops, (void *)&square_ops);
  return *r1 + *me->area + other + (unused_slot(&s1) != 0);
}
