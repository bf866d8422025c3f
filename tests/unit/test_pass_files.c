/* The file-driven pass tests (as in QBE's test directory of .ssa files): every tests/passes/NAME.py holds one case
 *
 *   # pass: PASS                 which entry of the driver's table to run (src/driver/driver.c)
 *   # target: TARGET             optional: the compile target (rlx_ctx_set_target_str), for
 *                                passes whose output depends on it (layout_nchwc's channel
 *                                block and tiles); default: this machine, which a case whose
 *                                output depends on the target must not rely on
 *   # ... free comments: what the case shows ...
 *   <the input module, TVMScript>
 *   # expected:
 *   <the module the pass must produce, TVMScript (with its metadata section when it has
 *    large constants)>
 *
 * The runner parses the input, runs that one pass (a Relax pass on the module; a TIR pass on
 * every PrimFunc), checks the result's well-formedness (Relax) or verifies it (TIR), parses
 * the expected module and compares the two structurally (rlx_module_equal: vars matched by
 * definition, names ignored); a mismatch prints both texts from the first differing line.
 * It also fails when a Relax pass of the table has no case. RLX_UPDATE_PASS_TESTS=1 rewrites
 * each file's expected part with what the pass now produces (review the diff).
 *
 *   test_pass_files [DIR]        (default tests/passes, run from the source tree)
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "rlx/rlx.h"
#include "script/script.h"
#include "test.h"

static int cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Prints a and b from their first differing line on. */
static void print_diff(const char* file, const char* got, const char* want) {
  int line = 1;
  const char* g = got;
  const char* w = want;
  while (*g && *g == *w) {
    if (*g == '\n') line++;
    g++;
    w++;
  }
  while (g > got && g[-1] != '\n') g--;
  while (w > want && w[-1] != '\n') w--;
  fprintf(stderr, "%s: the result differs from the expected module (printed forms differ from line %d)\n"
                  "---- result from there:\n%.3000s\n---- expected from there:\n%.3000s\n",
          file, line, g, w);
}

/* One TIR pass on every PrimFunc of m. */
static rlx_status_t* run_tir(rlx_ctx_t* ctx, const rlx_driver_pass_t* p, rlx_module_t* m, rlx_module_t** out) {
  rlx_module_t* r = rlx_module_copy(ctx, m);
  for (int i = 0; i < r->n_funcs; i++) {
    if (r->funcs[i].kind != RLX_FUNC_TIR) continue;
    rlx_tir_func_t* f = NULL;
    RLX_RETURN_IF_ERROR(p->tir(ctx, r->funcs[i].func, &f));
    RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_tir_verify(f), "ill-formed after %s", p->name));
    r->funcs[i].func = f;
  }
  *out = r;
  return NULL;
}

static const rlx_driver_pass_t* find_pass(const char* name) {
  const rlx_driver_pass_t* all;
  int n;
  rlx_driver_passes(&all, &n);
  for (int i = 0; i < n; i++)
    if (strcmp(all[i].name, name) == 0) return &all[i];
  return NULL;
}

/* Runs one case; returns the pass it names (NULL when the file is malformed). */
static const rlx_driver_pass_t* run_case(const char* path, bool update) {
  char* text = NULL;
  rlx_status_t* st = rlx_file_read(path, &text, NULL);
  CHECK_MSG(!st, "%s: %s", path, st ? rlx_status_message(st) : "");
  if (st) {
    rlx_status_free(st);
    return NULL;
  }
  char name[64] = "", target[256] = "";
  const char* hdr = strstr(text, "# pass: ");
  if (hdr) sscanf(hdr + 8, "%63s", name);
  const char* thdr = strstr(text, "\n# target: ");
  if (thdr) sscanf(thdr + 11, "%255[^\n]", target);
  char* split = strstr(text, "\n# expected:\n");
  const rlx_driver_pass_t* p = name[0] ? find_pass(name) : NULL;
  CHECK_MSG(p && (p->relax || p->tir) && split, "%s: needs a '# pass: NAME' line naming a Relax or TIR pass "
            "(got '%s') and a '# expected:' line", path, name);
  if (!p || !(p->relax || p->tir) || !split) {
    free(text);
    return NULL;
  }
  split[1] = 0; /* text = the input; split + 13 = the expected module */
  const char* want_text = split + 13;
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t *in = NULL, *got = NULL, *want = NULL;
  st = target[0] ? rlx_status_annotate(rlx_ctx_set_target_str(ctx, target), "the '# target:' line") : NULL;
  if (!st) st = rlx_status_annotate(rlx_script_parse(ctx, text, path, &in), "the input");
  if (!st && p->relax) st = p->relax(ctx, in, &got);
  else if (!st) st = run_tir(ctx, p, in, &got);
  if (!st && p->relax) st = rlx_status_annotate(rlx_relax_well_formed(ctx, got), "ill-formed after %s", p->name);
  char* got_text = st ? NULL : rlx_script_print_module_ex(got, true);
  if (!st && update) {
    FILE* f = fopen(path, "w");
    if (f) {
      fprintf(f, "%s# expected:\n%s", text, got_text);
      fclose(f);
    }
    printf("%s: expected output rewritten\n", path);
  }
  if (!st && !update) st = rlx_status_annotate(rlx_script_parse(ctx, want_text, path, &want), "the expected module");
  CHECK_MSG(!st, "%s: %s", path, st ? rlx_status_message(st) : "");
  rlx_status_free(st);
  if (want && got) {
    bool eq = rlx_module_equal(got, want);
    CHECK_MSG(eq, "%s: pass %s", path, p->name);
    if (!eq) {
      char* w = rlx_script_print_module_ex(want, true);
      print_diff(path, got_text ? got_text : "", w ? w : "");
      free(w);
    }
  }
  free(got_text);
  rlx_ctx_free(ctx);
  free(text);
  return p;
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : "tests/passes";
  const char* up = getenv("RLX_UPDATE_PASS_TESTS");
  bool update = up && *up && strcmp(up, "0") != 0;
  DIR* d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open %s", dir);
  if (!d) TEST_MAIN_END();
  char* files[512];
  int n = 0;
  for (struct dirent* e; (e = readdir(d)) && n < 512;) {
    size_t len = strlen(e->d_name);
    if (len > 3 && strcmp(e->d_name + len - 3, ".py") == 0) files[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(files, (size_t)n, sizeof(files[0]), cmp_str);
  const rlx_driver_pass_t* all;
  int n_all;
  rlx_driver_passes(&all, &n_all);
  int covered[64] = {0};
  for (int i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
    const rlx_driver_pass_t* p = run_case(path, update);
    if (p) covered[p - all]++;
    free(files[i]);
  }
  for (int i = 0; i < n_all && i < 64; i++)
    CHECK_MSG(all[i].stage != RLX_STAGE_RELAX || covered[i] > 0, "no case in %s runs the Relax pass %s", dir,
              all[i].name);
  printf("%d pass test file(s) in %s\n", n, dir);
  TEST_MAIN_END();
}
