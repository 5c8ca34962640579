/* Compiler builtins that become llvm.* intrinsics: expect, assume_aligned,
 * memcpy, prefetch, object size. */
#include "aliascheck.h"

int x, y;
int *table[2] = {&x, &y};

int main(int argc, char **argv) {
  (void)argv;
  int *p = __builtin_expect(argc > 1, 0) ? &x : &y;
  int *q = __builtin_assume_aligned(table[0], 4);
  int *copy[2];
  __builtin_memcpy(copy, table, sizeof table);
  __builtin_prefetch(p);
  /* p is &x or &y. */
  MAYALIAS(p, &x);
  MAYALIAS(p, &y);
  /* assume_aligned returns its argument: table's element (collapsed: x or y). */
  MAYALIAS(q, &x);
  /* The copied array holds what table holds. */
  MAYALIAS(copy[1], &y);
  int other;
  NOALIAS(copy[0], &other);
  return (int)__builtin_object_size(p, 0) + (other = 0);
}
