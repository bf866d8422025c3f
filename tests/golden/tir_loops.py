# from tvm.script import tir as T

@T.prim_func
def loops(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    # with T.block("root"):
    for i in T.parallel(64):
        for j_0 in range(16):
            for j_1 in T.vectorized(4):
                with T.block("B"):
                    v0 = T.axis.spatial(64, i)
                    v1 = T.axis.spatial(64, j_0 * 4 + j_1)
                    T.reads(A[v0, v1])
                    T.writes(B[v0, v1])
                    B[v0, v1] = A[v0, v1] * T.float32(2.0)
    for i in T.unroll(4):
        for j in range(2, 10):
            B[i, j] = T.float32(1.0)
