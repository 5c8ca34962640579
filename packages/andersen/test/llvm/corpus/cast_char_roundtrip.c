/* Casting to char* (or void*) and back is not an int<->pointer cast: with
 * opaque pointers it is no instruction at all, and the target is kept. */
#include "aliascheck.h"

struct s {
  int *p;
  double d;
};

int main(void) {
  int a = 0, b = 0;
  struct s v;
  v.p = &a;
  v.d = 1.0;
  char *raw = (char *)&v;
  struct s *back = (struct s *)raw;
  /* back is &v. */
  MUSTALIAS(back, &v);
  /* back->p reads v.p = {a}. */
  MAYALIAS(back->p, &a);
  /* v.p only ever holds &a. */
  NOALIAS(back->p, &b);
  void *vp = &b;
  int *ip = vp;
  /* Through void* and back: still &b. */
  MUSTALIAS(ip, &b);
  /* ip is {b}; raw is {v}. */
  NOALIAS(ip, raw);
  return *ip + *back->p;
}
