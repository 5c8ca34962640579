/* Getters and setters on two different objects share their parameters. */
#include "aliascheck.h"

struct account {
  int *owner;
  int *balance;
};

static void set_owner(struct account *acc, int *o) { acc->owner = o; }
static int *get_owner(struct account *acc) { return acc->owner; }
static int *get_balance(struct account *acc) { return acc->balance; }

int main(void) {
  int alice = 0, bob = 0, money = 0;
  struct account a1, a2;
  a1.balance = &money;
  a2.balance = &money;
  set_owner(&a1, &alice);
  set_owner(&a2, &bob);
  int *o1 = get_owner(&a1);
  /* a1's owner is alice. */
  MAYALIAS(o1, &alice);
  /* set_owner's acc holds {a1, a2} and o holds {alice, bob}. */
  EXPECTEDFAIL_NOALIAS(o1, &bob);
  /* owner fields never receive &money; balance fields never a person. */
  int *b1 = get_balance(&a1);
  /* b1 = a1.balance = {money}; o1 is {alice, bob}. */
  NOALIAS(o1, b1);
  /* a1.balance was set to &money. */
  MUSTALIAS(b1, &money);
  /* &a1.owner and &a2.owner are fields of different objects. */
  NOALIAS(&a1.owner, &a2.owner);
  return *o1 + *b1;
}
