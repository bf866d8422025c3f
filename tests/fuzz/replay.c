/* main() for the fuzz targets when libFuzzer is not linked: runs the target once on every
 * file of the directories (or files) given, in name order, and prints how many ran. A crash
 * or failed check aborts, which fails the ctest case. */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* buf = malloc(n > 0 ? (size_t)n : 1);
  size_t got = buf ? fread(buf, 1, (size_t)(n > 0 ? n : 0), f) : 0;
  fclose(f);
  if (!buf || (long)got != n) {
    free(buf);
    fprintf(stderr, "replay: cannot read %s\n", path);
    return 1;
  }
  LLVMFuzzerTestOneInput(buf, got);
  free(buf);
  return 0;
}

static int cmp(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

int main(int argc, char** argv) {
  int ran = 0, bad = 0;
  for (int i = 1; i < argc; i++) {
    struct stat sb;
    if (stat(argv[i], &sb) != 0) {
      fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(sb.st_mode)) {
      bad += run_file(argv[i]), ran++;
      continue;
    }
    DIR* d = opendir(argv[i]);
    if (!d) return 1;
    char** names = NULL;
    size_t n = 0;
    for (struct dirent* e; (e = readdir(d));) {
      if (e->d_name[0] == '.') continue;
      names = realloc(names, (n + 1) * sizeof *names);
      names[n] = malloc(strlen(argv[i]) + strlen(e->d_name) + 2);
      sprintf(names[n++], "%s/%s", argv[i], e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp);
    for (size_t k = 0; k < n; k++) {
      bad += run_file(names[k]), ran++;
      free(names[k]);
    }
    free(names);
  }
  printf("replay: %d inputs, %d unreadable\n", ran, bad);
  return bad ? 1 : 0;
}
