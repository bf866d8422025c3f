/* rlx_tir_verify: well-formed functions pass; undefined vars, foreign buffers, iter values
 * that use the block's own iter vars and wrong store types are reported with the function
 * (and block) name. */
#include "test.h"
#include "test_tir_interp_builders.h"
#include "transform/tir/transform.h"

int main(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  CHECK_OK(rlx_tir_verify(tb_matmul_relu(c, tb_i(c, 4), tb_i(c, 4), tb_i(c, 4), 0.0)));
  rlx_var_t* M = rlx_ir_var(c, "M", rlx_dt_int64());
  CHECK_OK(rlx_tir_verify(tb_matmul_relu(c, tb_v(M), tb_i(c, 3), tb_v(M), 0.0)));
  CHECK_OK(rlx_tir_verify(tb_vector_add(c, true)));
  CHECK_OK(rlx_tir_verify(tb_lowered_vec(c)));

  rlx_dtype_t f32 = rlx_dt_float32(), i64 = rlx_dt_int64();
  rlx_expr_t* s8[1] = {tb_i(c, 8)};
  rlx_tir_buffer_t* O = rlx_tir_buffer_create(c, "O", f32, 1, s8, NULL);
  rlx_var_t* po = rlx_ir_var(c, "o", rlx_dt_handle());
  rlx_var_t* i = rlx_ir_var(c, "i", i64);
  rlx_var_t* j = rlx_ir_var(c, "j", i64);
  rlx_expr_t* ii[1] = {tb_v(i)};
  rlx_expr_t* jj[1] = {tb_v(j)};
  /* j is never defined */
  rlx_tir_stmt_t* body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 8), RLX_FOR_SERIAL, rlx_tir_store(c, O, tb_f(c, 1), 1, jj));
  CHECK_ERR(rlx_tir_verify(rlx_tir_func_create(c, "f1", 1, &po, &O, body)),
            "PrimFunc 'f1': variable 'j' is used but not defined");
  /* loop var used after its loop */
  rlx_tir_stmt_t* two[2] = {rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 8), RLX_FOR_SERIAL, rlx_tir_store(c, O, tb_f(c, 1), 1, ii)),
                            rlx_tir_store(c, O, tb_f(c, 2), 1, ii)};
  CHECK_ERR(rlx_tir_verify(rlx_tir_func_create(c, "f2", 1, &po, &O, rlx_tir_seq(c, 2, two))), "variable 'i'");
  /* a buffer that is neither a param nor allocated */
  rlx_tir_buffer_t* X = rlx_tir_buffer_create(c, "X", f32, 1, s8, NULL);
  body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 8), RLX_FOR_SERIAL, rlx_tir_store(c, O, rlx_ir_load(c, X, 1, ii), 1, ii));
  CHECK_ERR(rlx_tir_verify(rlx_tir_func_create(c, "f3", 1, &po, &O, body)),
            "PrimFunc 'f3': buffer 'X' is used but is not in the buffer map or allocated");
  /* ... allocated, it is fine */
  body = rlx_tir_allocate(c, X, body);
  CHECK_OK(rlx_tir_verify(rlx_tir_func_create(c, "f4", 1, &po, &O, body)));
  /* a block iter value that uses the block's own iter var */
  rlx_var_t* vi = rlx_ir_var(c, "vi", i64);
  rlx_iter_var_t* iv = rlx_tir_iter_var(c, vi, tb_i(c, 0), tb_i(c, 8), RLX_ITER_SPATIAL);
  rlx_expr_t* vv[1] = {tb_v(vi)};
  rlx_tir_block_t* blk = tb_block(c, "B", 1, &iv, 0, NULL, 0, NULL, NULL, rlx_tir_store(c, O, tb_f(c, 1), 1, vv));
  body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 8), RLX_FOR_SERIAL, rlx_tir_block_realize(c, 1, vv, NULL, blk));
  CHECK_ERR(rlx_tir_verify(rlx_tir_func_create(c, "f5", 1, &po, &O, body)),
            "PrimFunc 'f5', block 'B': variable 'vi' is used but not defined");
  body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 8), RLX_FOR_SERIAL, rlx_tir_block_realize(c, 1, ii, NULL, blk));
  CHECK_OK(rlx_tir_verify(rlx_tir_func_create(c, "f6", 1, &po, &O, body)));
  /* wrong number of indices */
  rlx_expr_t* two_idx[2] = {tb_v(i), tb_v(i)};
  body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 8), RLX_FOR_SERIAL, rlx_tir_store(c, O, tb_f(c, 1), 2, two_idx));
  CHECK_ERR(rlx_tir_verify(rlx_tir_func_create(c, "f9", 1, &po, &O, body)), "store to buffer 'O' has 2 indices for 1 dimensions");
  body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 8), RLX_FOR_SERIAL, rlx_tir_block_realize(c, 1, ii, NULL, blk));
  /* two blocks with the same name */
  rlx_tir_stmt_t* twice[2] = {body, body};
  CHECK_ERR(rlx_tir_verify(rlx_tir_func_create(c, "f8", 1, &po, &O, rlx_tir_seq(c, 2, twice))),
            "block name 'B' is not unique");
  /* a store of the wrong type */
  body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 8), RLX_FOR_SERIAL, rlx_tir_store(c, O, tb_v(i), 1, ii));
  CHECK_ERR(rlx_tir_verify(rlx_tir_func_create(c, "f7", 1, &po, &O, body)), "store into buffer 'O' has a value of the wrong type");
  rlx_ctx_free(c);
  TEST_MAIN_END();
}
