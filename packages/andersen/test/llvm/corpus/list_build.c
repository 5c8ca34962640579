/* A singly linked list built in a loop from one malloc site. */
#include <stdlib.h>
#include "aliascheck.h"

struct node {
  int *payload;
  struct node *next;
};

int main(void) {
  int vals[3] = {1, 2, 3};
  int sentinel = 0;
  struct node *head = NULL;
  for (int i = 0; i < 3; i++) {
    struct node *n = malloc(sizeof *n);
    if (!n)
      return 1;
    n->payload = &vals[i];
    n->next = head;
    head = n;
  }
  if (!head || !head->next)
    return 1;
  struct node *second = head->next;
  /* All nodes are one abstract object: head and its successor are distinct
   * blocks at run time, but one object here. */
  EXPECTEDFAIL_NOALIAS(head, second);
  /* Payloads point into vals. */
  MAYALIAS(second->payload, &vals[1]);
  /* The payload field and the next field are different fields. */
  NOALIAS(&head->payload, &head->next);
  /* payload holds {vals}, next holds {the node object}. */
  NOALIAS(head->payload, head->next);
  /* sentinel is never stored in a node. */
  NOALIAS(head->payload, &sentinel);
  int s = 0;
  while (head) {
    struct node *nx = head->next;
    s += *head->payload;
    free(head);
    head = nx;
  }
  return s + sentinel;
}
