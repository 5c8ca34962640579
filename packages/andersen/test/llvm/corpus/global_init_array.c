/* Initialised global arrays of pointers and of structs with pointers. */
#include "aliascheck.h"

int a, b, c, d;
int *ptrs[] = {&a, &b, 0};
int *lonely[] = {&c};

struct kv {
  int *k;
  int *v;
};
struct kv table[] = {{&a, &c}, {&b, &d}};

int main(void) {
  /* ptrs[1] is initialised with &b. */
  MAYALIAS(ptrs[1], &b);
  /* Collapsed array: ptrs[0] is {a, b} though it is really &a. */
  EXPECTEDFAIL_NOALIAS(ptrs[0], &b);
  /* lonely holds {c}; ptrs holds {a, b}. */
  NOALIAS(lonely[0], ptrs[0]);
  /* table[*].k holds {a, b}; table[*].v holds {c, d}. */
  NOALIAS(table[0].k, table[1].v);
  /* table[1].k is initialised with &b. */
  MAYALIAS(table[1].k, &b);
  /* Both are &c. */
  MAYALIAS(table[0].v, lonely[0]);
  return *ptrs[0] + *lonely[0] + *table[1].v;
}
