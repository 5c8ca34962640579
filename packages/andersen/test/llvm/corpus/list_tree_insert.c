/* A binary search tree built by a recursive insert. */
#include <stdlib.h>
#include "aliascheck.h"

struct tree {
  int key;
  int *data;
  struct tree *left;
  struct tree *right;
};

static struct tree *insert(struct tree *t, int key, int *data) {
  if (!t) {
    t = malloc(sizeof *t);
    if (!t)
      exit(1);
    t->key = key;
    t->data = data;
    t->left = t->right = NULL;
    return t;
  }
  if (key < t->key)
    t->left = insert(t->left, key, data);
  else
    t->right = insert(t->right, key, data);
  return t;
}

static struct tree *find(struct tree *t, int key) {
  while (t && t->key != key)
    t = key < t->key ? t->left : t->right;
  return t;
}

int main(void) {
  int d1 = 0, d2 = 0, d3 = 0, unused = 0;
  struct tree *root = NULL;
  root = insert(root, 5, &d1);
  root = insert(root, 2, &d2);
  root = insert(root, 8, &d3);
  struct tree *n = find(root, 8);
  if (!n)
    return 1;
  /* find returns a node of the tree (all nodes are one object). */
  MAYALIAS(n, root->right);
  /* data fields hold {d1, d2, d3}. */
  MAYALIAS(n->data, &d3);
  /* unused is never inserted. */
  NOALIAS(n->data, &unused);
  /* left and right are different fields, as are key and data. */
  NOALIAS(&n->left, &n->right);
  /* key (field 0) and data (field 1) differ. */
  NOALIAS(&n->key, &n->data);
  /* The first field (key) is at the node's address. */
  MUSTALIAS(&root->key, root);
  /* n is root's right child, a different block at run time, but all nodes
   * come from one malloc site. */
  EXPECTEDFAIL_NOALIAS(&n->key, root);
  return *n->data + unused;
}
