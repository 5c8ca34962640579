/* A recursively built tree and a recursive search that returns the address
 * of a field inside a node. */
#include <stdlib.h>
#include "aliascheck.h"

struct tnode {
  struct tnode *kids[2];
  int *leaf;
};

static struct tnode *make(int depth, int *leaf) {
  struct tnode *t = malloc(sizeof *t);
  if (!t)
    exit(1);
  t->leaf = leaf;
  t->kids[0] = depth > 0 ? make(depth - 1, leaf) : NULL;
  t->kids[1] = depth > 0 ? make(depth - 1, leaf) : NULL;
  return t;
}

static int **leftmost_leaf(struct tnode *t) {
  if (t->kids[0])
    return leftmost_leaf(t->kids[0]);
  return &t->leaf;
}

int main(void) {
  int v = 0, w = 0;
  struct tnode *root = make(3, &v);
  int **slot = leftmost_leaf(root);
  /* slot is the leaf field of some node. */
  MAYALIAS(slot, &root->kids[0]->kids[0]->kids[0]->leaf);
  /* leaf holds {v}. */
  MAYALIAS(*slot, &v);
  /* w is never stored in a node. */
  NOALIAS(*slot, &w);
  /* The kids array (field 0, collapsed) and leaf (field 1) differ. */
  NOALIAS(slot, &root->kids[1]);
  return **slot + w;
}
