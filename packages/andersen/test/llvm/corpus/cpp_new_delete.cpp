// new and delete: each new-expression is an allocation site; delete has no
// pointer effect.
#include "aliascheck.h"

struct Node {
  int *val;
  Node *next;
};

int x, y;

Node *make(int *v, Node *next) { return new Node{v, next}; }

int main() {
  Node *n1 = new Node{&x, nullptr};
  Node *n2 = new Node{&y, n1};
  int *arr = new int[10];
  NOALIAS(n1, n2);
  MUSTALIAS(n2->next, n1);
  MUSTALIAS(n1->val, &x);
  NOALIAS(n1->val, &y);
  NOALIAS(arr, n1);
  Node *m1 = make(&x, nullptr);
  Node *m2 = make(&y, m1);
  // One site inside make: both results are its object.
  EXPECTEDFAIL_NOALIAS(m1, m2);
  NOALIAS(m1, n1);
  delete n2;
  delete n1;
  delete[] arr;
  delete m2;
  delete m1;
  return 0;
}
