/* rlx — status objects shared by the runtime and the compiler.
 *
 * Every fallible call returns an rlx_status_t*. NULL means success; anything else is a
 * heap object carrying a code and a message that the caller owns and must release with
 * rlx_status_free (or hand up the stack unchanged). Library code never prints or exits;
 * only tools/ turns a status into a message and an exit code.
 */
#ifndef RLX_STATUS_H
#define RLX_STATUS_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  RLX_OK = 0,
  RLX_INVALID_ARGUMENT, /* caller passed something malformed (shape, dtype, option) */
  RLX_PARSE_ERROR,      /* text or file could not be read as the expected format */
  RLX_NOT_FOUND,        /* a named thing (function, file, symbol) does not exist */
  RLX_UNSUPPORTED,      /* well-formed but not implemented */
  RLX_IO_ERROR,         /* file system or process failure */
  RLX_OUT_OF_MEMORY,
  RLX_INTERNAL,         /* a bug in rlx */
  RLX_TYPE_MISMATCH     /* a value of another kind than expected (a tuple where a tensor is
                           wanted, a shape where an int is): TVM's TypeError */
} rlx_status_code_t;

typedef struct rlx_status rlx_status_t;

/* Marks a function whose result must be used: every call that can fail returns a status,
 * and dropping it would leak it and lose the error (a compile error under -Werror). Every
 * function returning rlx_status_t* carries it, static ones included. */
#if defined(__GNUC__) || defined(__clang__)
#define RLX_MUST_USE __attribute__((warn_unused_result))
#else
#define RLX_MUST_USE
#endif

/* Creates a status with a printf-style message. Never returns NULL for code != RLX_OK. */
RLX_MUST_USE rlx_status_t* rlx_status_create(rlx_status_code_t code, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
RLX_MUST_USE rlx_status_t* rlx_status_createv(rlx_status_code_t code, const char* fmt, va_list ap);
/* Prefixes the message of `st` with "<prefix>: " and returns it (st may be NULL). */
RLX_MUST_USE rlx_status_t* rlx_status_annotate(rlx_status_t* st, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
rlx_status_code_t rlx_status_code(const rlx_status_t* st);
/* The message; "ok" for NULL. Valid until the status is freed. */
const char* rlx_status_message(const rlx_status_t* st);
const char* rlx_status_code_name(rlx_status_code_t code);
void rlx_status_free(rlx_status_t* st);

#define RLX_RETURN_IF_ERROR(expr)            \
  do {                                       \
    rlx_status_t* rlx_st_ = (expr);          \
    if (rlx_st_) return rlx_st_;             \
  } while (0)

#ifdef __cplusplus
}
#endif
#endif
