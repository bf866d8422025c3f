# from tvm.script import tir as T

@T.prim_func
def main(var_A: T.handle, B: T.Buffer((128,), "float32"), var_C: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    n = T.int64()
    A = T.match_buffer(var_A, (n, T.int64(128)))
    C = T.match_buffer(var_C, (n, T.int64(128)))
    # with T.block("root"):
    for i, j in T.grid(n, T.int64(128)):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j], B[v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = A[v_i, v_j] + B[v_j]
