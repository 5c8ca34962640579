/* char* arithmetic with offsetof to reach a field, and container_of. */
#include <stddef.h>
#include "aliascheck.h"

struct list_head {
  struct list_head *next;
};

struct item {
  int *value;
  struct list_head link;
  int *tag;
};

#define container_of(ptr, type, member) \
  ((type *)((char *)(ptr) - offsetof(type, member)))

int main(void) {
  int v = 0, t = 0;
  struct item it;
  it.value = &v;
  it.link.next = NULL;
  it.tag = &t;
  struct list_head *lh = &it.link;
  struct item *owner = container_of(lh, struct item, link);
  /* container_of gets back to &it. */
  MAYALIAS(owner, &it);
  /* owner->value reads it.value = {v}. */
  MAYALIAS(owner->value, &v);
  int **tagp = (int **)((char *)&it + offsetof(struct item, tag));
  /* The byte offset of tag is the field tag. */
  MAYALIAS(tagp, &it.tag);
  /* *tagp reads it.tag = {t}. */
  MAYALIAS(*tagp, &t);
  int other = 0;
  /* other is a different object from it, but owner came from a negative byte
   * offset (container_of), which the model sends to unknown: it cannot tell. */
  EXPECTEDFAIL_NOALIAS(&other, owner);
  return *owner->value + **tagp + other;
}
