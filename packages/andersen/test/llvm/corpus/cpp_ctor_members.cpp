// Constructors initializing members; objects on the stack and the heap.
#include "aliascheck.h"

int x, y;

class Pair {
public:
  Pair(int *f, int *s) : first_(f), second_(s) {}
  int *first() const { return first_; }
  int *second() const { return second_; }

private:
  int *first_;
  int *second_;
};

int main() {
  Pair p(&x, &y);
  Pair *h = new Pair(&y, &y);
  MAYALIAS(p.first(), &x);
  // first() is one function for every Pair: it may return y (from *h) too.
  EXPECTEDFAIL_NOALIAS(p.first(), &y);
  MAYALIAS(h->second(), &y);
  NOALIAS(&p, h);
  delete h;
  return 0;
}
