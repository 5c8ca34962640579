// Static data members and function-local statics are globals.
#include "aliascheck.h"

int x, y;

struct Registry {
  static int *current;
  static int **slot() {
    static int *cell = &y;
    return &cell;
  }
};
int *Registry::current = &x;

int main() {
  MUSTALIAS(Registry::current, &x);
  int **s = Registry::slot();
  MUSTALIAS(*s, &y);
  NOALIAS(s, &Registry::current);
  NOALIAS(*s, Registry::current);
  return 0;
}
