/* More of the C library by summary: getcwd returns its buffer (or a new
 * block), strptime a pointer into its input, mmap a new object per call
 * site, sscanf with %p an unknown pointer, readdir and localtime memory the
 * library owns; a library function called through a pointer acts by its
 * summary too. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "aliascheck.h"

struct syscall_entry {
  const char *name;
  char *(*call)(char *, size_t);
};

static struct syscall_entry table[] = {{"getcwd", getcwd}};

int x;

int main(int argc, char **argv) {
  char buffer[256];
  char *cwd = getcwd(buffer, sizeof buffer);
  /* getcwd(buf, n) returns buf. */
  MAYALIAS(cwd, buffer);
  NOALIAS(cwd, &x);
  char *through = table[argc > 5].call(buffer, sizeof buffer);
  /* The same summary through a function pointer. */
  MAYALIAS(through, buffer);
  NOALIAS(through, &x);
  struct tm when;
  const char *text = "2024-01-02";
  const char *rest = strptime(text, "%Y-%m-%d", &when);
  /* strptime returns a pointer into its input. */
  MAYALIAS(rest, text);
  void *first = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void *second = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  /* Two call sites, two new objects. */
  NOALIAS(first, second);
  void *scanned = 0;
  sscanf(argv[0], "%p", &scanned);
  /* %p reads any pointer: it may be &x. */
  MAYALIAS(scanned, &x);
  time_t now = time(0);
  struct tm *local = localtime(&now);
  /* localtime's result is the library's own memory. */
  NOALIAS(local, &when);
  DIR *dir = opendir(".");
  struct dirent *entry = dir ? readdir(dir) : 0;
  NOALIAS(entry, buffer);
  if (dir)
    closedir(dir);
  munmap(first, 4096);
  munmap(second, 4096);
  return (rest != 0) + (through != 0) + (local != 0);
}
