/* Pointers that overlap only partly: a byte inside an int, and a struct
 * against its inner struct. */
#include "aliascheck.h"

struct hdr {
  short kind;
  short len;
};

struct msg {
  struct hdr h;
  int body;
};

int main(void) {
  int x = 0x01020304;
  int y = 0;
  char *byte1 = (char *)&x + 1;
  /* byte1 lies inside x. */
  PARTIALALIAS(byte1, &x);
  /* byte1 stays inside x; y is another object. */
  NOALIAS(byte1, &y);
  struct msg m = {{1, 4}, 7};
  /* m and m.h start at the same address; m.h is smaller. */
  PARTIALALIAS(&m, &m.h);
  /* m.h.kind is flattened field 0, m.body flattened field 2. */
  NOALIAS(&m.h.kind, &m.body);
  return *byte1 + y + m.body;
}
