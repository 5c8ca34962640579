// A thrown pointer is stored in the exception object; the handler reads it
// back.
#include "aliascheck.h"

int x, y;

static void fail(int *why) { throw why; }

int main(int argc, char **) {
  int *caught = nullptr;
  try {
    fail(argc > 1 ? &x : &x);
  } catch (int *p) {
    caught = p;
  }
  MAYALIAS(caught, &x);
  // A handler may also catch what code the analysis cannot see threw: unknown.
  EXPECTEDFAIL_NOALIAS(caught, &y);
  return 0;
}
