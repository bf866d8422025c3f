/* Global registry (register, get, override, remove, many threads) and packed calls with
 * the thread-local last error. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "rlx/runtime.h"
#include "test.h"

/* Returns args[0] + *(int64_t*)resource as an int. */
static int add_resource(rlx_value_t* args, int* codes, int n, rlx_value_t* ret, int* ret_code,
                        void* res) {
  if (n != 1 || codes[0] != RLX_ARG_INT) {
    RLXAPISetLastError("add_resource: expected one int");
    return -1;
  }
  ret->v_int64 = args[0].v_int64 + *(int64_t*)res;
  *ret_code = RLX_ARG_INT;
  return 0;
}

static int fails_silently(rlx_value_t* args, int* codes, int n, rlx_value_t* ret, int* ret_code,
                          void* res) {
  return 7;
}

static int fails_tvm_style(rlx_value_t* args, int* codes, int n, rlx_value_t* ret, int* ret_code,
                           void* res) {
  TVMAPISetLastError("tvm kernel: bad shape");
  return -1;
}

/* Sums float32 tensors 0 and 1 into tensor 2 (4 elements). */
static int add4(rlx_value_t* args, int* codes, int n, rlx_value_t* ret, int* ret_code, void* res) {
  if (n != 3) return -1;
  for (int i = 0; i < 3; i++)
    if (codes[i] != RLX_ARG_DLTENSOR) return -1;
  DLTensor* a = args[0].v_handle;
  DLTensor* b = args[1].v_handle;
  DLTensor* c = args[2].v_handle;
  for (int i = 0; i < 4; i++) ((float*)c->data)[i] = ((float*)a->data)[i] + ((float*)b->data)[i];
  return 0;
}

static void test_register_get(void) {
  int64_t ten = 10, twenty = 20;
  CHECK_OK(rlx_registry_register("test.add", add_resource, &ten, false));
  CHECK_ERR(rlx_registry_register("test.add", add_resource, &twenty, false), "already registered");
  rlx_packed_fn_t fn = NULL;
  void* res = NULL;
  CHECK_OK(rlx_registry_get("test.add", &fn, &res));
  CHECK(fn == add_resource && res == &ten);
  rlx_value_t arg = {.v_int64 = 5}, ret = {0};
  int code = RLX_ARG_INT, ret_code = -1;
  CHECK_OK(rlx_packed_call(fn, res, &arg, &code, 1, &ret, &ret_code));
  CHECK(ret.v_int64 == 15 && ret_code == RLX_ARG_INT);

  CHECK_OK(rlx_registry_register("test.add", add_resource, &twenty, true));
  CHECK_OK(rlx_registry_get("test.add", &fn, &res));
  CHECK(res == &twenty);
  CHECK_OK(rlx_registry_get("test.add", NULL, NULL)); /* membership test */

  rlx_status_t* st = rlx_registry_get("test.missing", &fn, &res);
  CHECK(rlx_status_code(st) == RLX_NOT_FOUND);
  CHECK(st && strstr(rlx_status_message(st), "'test.missing'"));
  rlx_status_free(st);

  CHECK_OK(rlx_registry_remove("test.add"));
  CHECK_ERR(rlx_registry_get("test.add", &fn, &res), "no global function 'test.add'");
  CHECK_ERR(rlx_registry_remove("test.add"), "test.add");
  CHECK_ERR(rlx_registry_register("", add_resource, NULL, false), "required");
  CHECK_ERR(rlx_registry_register("x", NULL, NULL, false), "required");
}

static void test_packed_errors(void) {
  rlx_value_t arg = {.v_float64 = 1.5};
  int code = RLX_ARG_FLOAT;
  int64_t zero = 0;
  CHECK_ERR(rlx_packed_call(add_resource, &zero, &arg, &code, 1, NULL, NULL),
            "add_resource: expected one int");
  CHECK_STREQ(rlx_last_error(), "add_resource: expected one int");
  CHECK_ERR(rlx_packed_call(fails_silently, NULL, NULL, NULL, 0, NULL, NULL), "returned 7");
  CHECK_ERR(rlx_packed_call(fails_tvm_style, NULL, NULL, NULL, 0, NULL, NULL), "tvm kernel: bad shape");
  CHECK_ERR(rlx_packed_call(NULL, NULL, NULL, NULL, 0, NULL, NULL), "NULL");
  /* long messages are truncated, not overflowed */
  char* big = malloc(10000);
  memset(big, 'x', 9999);
  big[9999] = 0;
  RLXAPISetLastError(big);
  CHECK(strlen(rlx_last_error()) == 4095);
  free(big);

  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c[4] = {0};
  int64_t shape[1] = {4};
  DLTensor ta = {a, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor tb = ta, tc = ta;
  tb.data = b;
  tc.data = c;
  DLTensor* ts[3] = {&ta, &tb, &tc};
  CHECK_OK(rlx_packed_call_tensors(add4, NULL, ts, 3));
  CHECK(c[0] == 11 && c[3] == 44);
  CHECK_ERR(rlx_packed_call_tensors(add4, NULL, ts, 2), "returned -1");
}

#define NTHREADS 8
#define PER_THREAD 200

/* Each thread registers its own names, reads every name of the threads before it that
 * exists, and checks its last error stays its own. */
static void* worker(void* p) {
  int id = (int)(intptr_t)p;
  long bad = 0;
  char name[64], msg[64];
  snprintf(msg, sizeof(msg), "thread %d", id);
  RLXAPISetLastError(msg);
  for (int i = 0; i < PER_THREAD; i++) {
    snprintf(name, sizeof(name), "thr%d.fn%d", id, i);
    rlx_status_t* st = rlx_registry_register(name, add_resource, (void*)(intptr_t)(id * 1000 + i), false);
    if (st) bad++;
    rlx_status_free(st);
    void* res = NULL;
    st = rlx_registry_get(name, NULL, &res);
    if (st || res != (void*)(intptr_t)(id * 1000 + i)) bad++;
    rlx_status_free(st);
    /* contended, possibly missing, lookups of other threads' names */
    snprintf(name, sizeof(name), "thr%d.fn%d", (id + 1) % NTHREADS, i);
    rlx_status_free(rlx_registry_get(name, NULL, NULL));
  }
  if (strcmp(rlx_last_error(), msg) != 0) bad++;
  return (void*)(intptr_t)bad;
}

static void test_threads(void) {
  pthread_t th[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, worker, (void*)(intptr_t)i);
  long bad = 0;
  for (int i = 0; i < NTHREADS; i++) {
    void* r;
    pthread_join(th[i], &r);
    bad += (long)(intptr_t)r;
  }
  CHECK_MSG(bad == 0, "%ld failures across threads", bad);
  /* every registration is visible afterwards */
  int missing = 0;
  for (int t = 0; t < NTHREADS; t++) {
    for (int i = 0; i < PER_THREAD; i++) {
      char name[64];
      void* res = NULL;
      snprintf(name, sizeof(name), "thr%d.fn%d", t, i);
      rlx_status_t* st = rlx_registry_get(name, NULL, &res);
      if (st || res != (void*)(intptr_t)(t * 1000 + i)) missing++;
      rlx_status_free(st);
      rlx_status_free(rlx_registry_remove(name));
    }
  }
  CHECK(missing == 0);
}

int main(void) {
  test_register_get();
  test_packed_errors();
  test_threads();
  TEST_MAIN_END();
}
