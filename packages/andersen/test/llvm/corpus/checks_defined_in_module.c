/* The check functions defined in the program itself (a suite header with
 * bodies) are still checks, not calls: their parameters merge nothing. */
static void *volatile sink;
__attribute__((noinline)) void MAYALIAS(void *p, void *q) { sink = p; sink = q; }
__attribute__((noinline)) void NOALIAS(void *p, void *q) { sink = p; sink = q; }
__attribute__((noinline)) void MUSTALIAS(void *p, void *q) { sink = p; sink = q; }

int x, y;

int main(void) {
  int *p = &x;
  int *q = &y;
  MUSTALIAS(p, &x);
  NOALIAS(p, q);
  MAYALIAS(q, &y);
  NOALIAS(&x, &y);
  return 0;
}
