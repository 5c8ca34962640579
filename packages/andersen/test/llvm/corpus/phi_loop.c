/* A pointer that walks through a loop: its phi merges every value it
 * takes. */
#include "aliascheck.h"

struct link {
  struct link *next;
  int v;
};

int main(void) {
  struct link l3 = {0, 3};
  struct link l2 = {&l3, 2};
  struct link l1 = {&l2, 1};
  struct link other = {0, 9};
  int sum = 0;
  struct link *last = &l1;
  for (struct link *it = &l1; it; it = it->next) {
    sum += it->v;
    last = it;
  }
  /* last visits l1, l2 and l3; at the end it is &l3. */
  MAYALIAS(last, &l3);
  /* last was &l1 after the first iteration, but is &l3 here: only a
   * flow-insensitive analysis keeps &l1 (clang -O2 peels the loop and sees it). */
  EXPECTEDFAIL_NOALIAS(last, &l1);
  /* other is not on the chain. */
  NOALIAS(last, &other);
  /* &last->v is field 1 of a chain link; &other.next is field 0 of other. */
  NOALIAS(&last->v, &other.next);
  return sum + other.v;
}
