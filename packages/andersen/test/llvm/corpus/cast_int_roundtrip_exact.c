/* Integers that become pointers: a ptrtoint converted straight back is its
 * pointer; integer constants used as pointers (sentinels) and integers widened
 * from 32 bits are no address of the program's objects; an address stored as
 * an integer and read back as a pointer keeps its target. */
#include <stdint.h>
#include "aliascheck.h"

#define SENTINEL ((int *)-1)

union word {
  uintptr_t bits;
  int *ptr;
};

struct boxed {
  uintptr_t bits;
};

int a, b, c;

int *pick(int *p) { return p == SENTINEL ? &c : p; }

int main(int argc, char **argv) {
  uintptr_t bits = (uintptr_t)&a;
  int *back = (int *)bits;
  /* back is &a exactly: converted straight back. */
  MAYALIAS(back, &a);
  NOALIAS(back, &b);
  int *sentinel = SENTINEL;
  /* A constant address is no object of the program. */
  NOALIAS(sentinel, &a);
  int small = argc;
  int *widened = (int *)(intptr_t)small;
  /* A 32-bit integer holds no 64-bit address. */
  NOALIAS(widened, &b);
  union word w;
  w.bits = (uintptr_t)&b;
  /* The address written as an integer is read back as the pointer member. */
  MAYALIAS(w.ptr, &b);
  struct boxed box;
  box.bits = (uintptr_t)&c;
  int *unboxed = (int *)box.bits;
  /* Read back from memory as an integer: the unknown object, which may be &c. */
  MAYALIAS(unboxed, &c);
  int *chosen = pick(argv[0] ? &a : SENTINEL);
  MAYALIAS(chosen, &c);
  MAYALIAS(chosen, &a);
  return *back + *w.ptr + *unboxed + *chosen + (widened != 0);
}
