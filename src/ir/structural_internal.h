/* Internal machinery of structural equality and hashing, shared by ir/structural.c (PrimExpr)
 * and tir/structural.c (statements, buffers, PrimFuncs).
 *
 * Variables and buffers are mapped by definition: the caller (or the Let / Reduce cases
 * here) records a ↔ b with rlx_eq_define when it meets a defining position, and every use
 * must then agree with the recorded pair. With map_free set, a variable (or buffer) met
 * unmapped on both sides is paired on first occurrence — this is how TIR maps shape vars
 * that first appear in buffer-map shapes. Hashing mirrors the same traversal: definitions
 * get consecutive indices, so equal things hash equally.
 */
#ifndef RLX_IR_STRUCTURAL_INTERNAL_H
#define RLX_IR_STRUCTURAL_INTERNAL_H

#include "ir.h"

/* Layout of struct rlx_iter_var (tir/tir.h) as seen from ir/, which cannot include tir/. */
typedef struct {
  rlx_var_t* var;
  rlx_expr_t* min;
  rlx_expr_t* extent;
  int kind;
} rlx_iter_var_view_t;

typedef struct rlx_eq_state rlx_eq_state_t;
struct rlx_eq_state {
  rlx_ptrmap_t fwd, bwd; /* a-side → b-side and back (vars and buffers) */
  bool map_free;
  /* Compares buffers of loads; NULL = pointer identity. */
  bool (*buf_eq)(rlx_eq_state_t* s, const struct rlx_tir_buffer* a, const struct rlx_tir_buffer* b);
};

/* Records a ↔ b (replacing earlier pairs of either). */
void rlx_eq_define(rlx_eq_state_t* s, const void* a, const void* b);
/* True when a is mapped to b; pairs them when both are unmapped and map_free is set (or a == b). */
bool rlx_eq_ptr(rlx_eq_state_t* s, const void* a, const void* b);
/* Same dtype and rlx_eq_ptr. */
bool rlx_eq_var(rlx_eq_state_t* s, const rlx_var_t* a, const rlx_var_t* b);
/* Structural equality of expressions (either may be NULL: equal only when both are). */
bool rlx_eq_expr(rlx_eq_state_t* s, const rlx_expr_t* a, const rlx_expr_t* b);
void rlx_eq_state_free(rlx_eq_state_t* s);

typedef struct rlx_hash_state rlx_hash_state_t;
struct rlx_hash_state {
  rlx_ptrmap_t ids; /* var/buffer → definition index + 1 */
  intptr_t next;
  bool map_free;
  /* Hashes buffers of loads; NULL = by address. */
  uint64_t (*buf_hash)(rlx_hash_state_t* s, const struct rlx_tir_buffer* b);
};

/* Gives p the next definition index and returns its hash. */
uint64_t rlx_hash_define(rlx_hash_state_t* s, const void* p);
/* Hash of a use of p: its definition index; first occurrence defines it when map_free. */
uint64_t rlx_hash_ptr(rlx_hash_state_t* s, const void* p);
uint64_t rlx_hash_dtype(rlx_dtype_t t);
uint64_t rlx_hash_str(const char* str);
uint64_t rlx_hash_expr_state(rlx_hash_state_t* s, const rlx_expr_t* e); /* NULL allowed */
void rlx_hash_state_free(rlx_hash_state_t* s);

#endif
