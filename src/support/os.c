/* Files, directories and child processes (POSIX). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

RLX_MUST_USE rlx_status_t* rlx_file_read(const char* path, char** out_data, size_t* out_len) {
  FILE* f = fopen(path, "rb");
  if (!f) return rlx_status_create(RLX_IO_ERROR, "cannot open '%s': %s", path, strerror(errno));
  rlx_strbuf_t sb = {0};
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) rlx_strbuf_appendn(&sb, buf, n);
  int err = ferror(f);
  fclose(f);
  if (err) {
    rlx_strbuf_free(&sb);
    return rlx_status_create(RLX_IO_ERROR, "cannot read '%s'", path);
  }
  if (out_len) *out_len = sb.len;
  *out_data = rlx_strbuf_take(&sb);
  return *out_data ? NULL : rlx_status_create(RLX_OUT_OF_MEMORY, "reading '%s'", path);
}

RLX_MUST_USE rlx_status_t* rlx_file_write(const char* path, const void* data, size_t len) {
  FILE* f = fopen(path, "wb");
  if (!f) return rlx_status_create(RLX_IO_ERROR, "cannot create '%s': %s", path, strerror(errno));
  size_t w = len ? fwrite(data, 1, len, f) : 0;
  int bad = fclose(f) != 0 || w != len;
  return bad ? rlx_status_create(RLX_IO_ERROR, "cannot write '%s'", path) : NULL;
}

RLX_MUST_USE rlx_status_t* rlx_mkdirs(const char* path) {
  char tmp[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof(tmp)) return rlx_status_create(RLX_INVALID_ARGUMENT, "bad directory '%s'", path);
  memcpy(tmp, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (tmp[i] != '/' && tmp[i] != 0) continue;
    char c = tmp[i];
    tmp[i] = 0;
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
      return rlx_status_create(RLX_IO_ERROR, "cannot create directory '%s': %s", tmp, strerror(errno));
    tmp[i] = c;
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_process_run(char* const argv[], char** out_log) {
  int fds[2];
  if (out_log) *out_log = NULL;
  if (pipe(fds) != 0) return rlx_status_create(RLX_IO_ERROR, "pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return rlx_status_create(RLX_IO_ERROR, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  rlx_strbuf_t sb = {0};
  char buf[4096];
  ssize_t r;
  while ((r = read(fds[0], buf, sizeof(buf))) > 0) rlx_strbuf_appendn(&sb, buf, (size_t)r);
  close(fds[0]);
  int wst = 0;
  while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) {
  }
  char* log = rlx_strbuf_take(&sb);
  rlx_status_t* st = NULL;
  if (!WIFEXITED(wst) || WEXITSTATUS(wst) != 0)
    st = rlx_status_create(RLX_IO_ERROR, "'%s' failed (exit %d):\n%s", argv[0],
                           WIFEXITED(wst) ? WEXITSTATUS(wst) : -1, log ? log : "");
  if (out_log) *out_log = log;
  else free(log);
  return st;
}
