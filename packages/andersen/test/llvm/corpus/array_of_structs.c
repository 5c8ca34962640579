/* Array of structs: field f of every element is one location, distinct from
 * field g of every element. */
#include "aliascheck.h"

struct rec {
  int *key;
  int *val;
};

int main(void) {
  int k1 = 1, k2 = 2, v1 = 3, v2 = 4;
  struct rec tab[4];
  tab[0].key = &k1;
  tab[0].val = &v1;
  tab[1].key = &k2;
  tab[1].val = &v2;
  /* Real alias: element 0's key field is the array start. */
  MAYALIAS(&tab[0].key, tab);
  /* key of element 0 and key of element 1: one location after collapsing. */
  EXPECTEDFAIL_NOALIAS(&tab[0].key, &tab[1].key);
  /* key and val are different fields even across elements. */
  NOALIAS(&tab[0].key, &tab[1].val);
  /* Same element, different fields. */
  NOALIAS(&tab[2].key, &tab[2].val);
  /* key fields hold {k1, k2}; val fields hold {v1, v2}. */
  NOALIAS(tab[0].key, tab[1].val);
  /* tab[1].key really holds &k2. */
  MAYALIAS(tab[1].key, &k2);
  /* Collapsed: tab[0].key may hold &k2 too. */
  EXPECTEDFAIL_NOALIAS(tab[0].key, &k2);
  return *tab[0].key + *tab[1].val;
}
