/* Non-constant indices into an array of structs keep the field. */
#include "aliascheck.h"

struct cell {
  int *left;
  int *right;
  int tag;
};

static struct cell grid[16];

int main(int argc, char **argv) {
  (void)argv;
  int l = 0, r = 0;
  int i = argc % 16;
  int j = (argc * 7) % 16;
  grid[i].left = &l;
  grid[j].right = &r;
  /* Same field, any index: one location (and i == j is possible). */
  MAYALIAS(&grid[i].left, &grid[j].left);
  /* Different fields stay different even with unknown indices. */
  NOALIAS(&grid[i].left, &grid[j].right);
  /* tag (field 2) and right (field 1) of the collapsed elements differ. */
  NOALIAS(&grid[i].tag, &grid[j].right);
  /* left fields hold {l}; right fields hold {r}. */
  NOALIAS(grid[j].left, grid[i].right);
  /* grid[i].left = &l, and i == j is possible. */
  MAYALIAS(grid[j].left, &l);
  return grid[i].tag;
}
