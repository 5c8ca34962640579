/* Selects between fields of different structs and of the same struct. */
#include "aliascheck.h"

struct s {
  int *a;
  int *b;
};

int x, y;

int main(int argc, char **argv) {
  (void)argv;
  struct s s1 = {&x, &y};
  struct s s2 = {&y, &x};
  int **pick = argc > 1 ? &s1.a : &s2.b;
  MAYALIAS(pick, &s1.a);
  MAYALIAS(pick, &s2.b);
  NOALIAS(pick, &s1.b);
  NOALIAS(pick, &s2.a);
  /* s1.a and s2.b both hold &x. */
  MUSTALIAS(*pick, &x);
  NOALIAS(*pick, &y);
  return 0;
}
