/* Library functions that call back: atexit (no arguments), on_exit with
 * its argument, bsearch with its key. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "aliascheck.h"

int x, y;
static void *given;

static void bye(void) {}
static void bye_with(int status, void *arg) {
  (void)status;
  given = arg;
}

int main(void) {
  atexit(bye);
  on_exit(bye_with, &x);
  /* on_exit passes &x to bye_with. */
  MUSTALIAS(given, &x);
  NOALIAS(given, &y);
  return 0;
}
