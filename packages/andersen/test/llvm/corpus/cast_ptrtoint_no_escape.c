/* Pointers turned into integers for arithmetic that never comes back as a
 * pointer (alignment checks, differences, hashes): in a program where no
 * integer of unknown origin becomes a pointer, they do not escape, so what
 * they point to keeps exact contents. */
#include <stddef.h>
#include <stdint.h>
#include "aliascheck.h"

struct cell {
  int *value;
  struct cell *next;
};

int a, b;
unsigned long hashes[16];

static unsigned long hash(const void *p) { return ((uintptr_t)p >> 4) % 16; }

int main(void) {
  struct cell first = {&a, 0};
  struct cell second = {&b, &first};
  hashes[hash(&first)]++;
  hashes[hash(&second)]++;
  char buffer[64];
  char *end = buffer + 40;
  ptrdiff_t used = end - buffer;
  int aligned = ((uintptr_t)buffer & 7) == 0;
  /* first and second never escaped: their fields hold exactly what was stored. */
  NOALIAS(first.value, second.value);
  MAYALIAS(second.next->value, &a);
  NOALIAS(second.next->value, &b);
  MAYALIAS(end, buffer);
  return (int)used + aligned;
}
