# from tvm.script import tir as T

@T.prim_func(private=True)
def exprs(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int32"), C: T.Buffer((16,), "bool"), n: T.int32):
    # with T.block("root"):
    for i in range(16):
        with T.block("e"):
            vi = T.axis.spatial(16, i)
            T.where(i < n)
            T.reads(A[vi], B[0:16])
            T.writes(A[vi], B[vi], C[vi])
            T.block_attr({"meta": 1, "name": "x"})
            A[vi] = T.exp(A[vi]) / (A[vi] + T.float32(1.5)) - T.sqrt(A[vi]) * T.Cast("float32", B[vi])
            B[vi] = B[vi] // 3 + B[vi] % 4 - T.truncmod(B[vi], 5) + T.Div(B[vi], 2) * (vi - 1)
            B[vi] = T.min(B[vi], T.max(n, 2)) - (B[vi] - (vi + 1))
            C[vi] = vi < 3 and (vi >= 1 or not vi == 2) or vi != 5
            A[vi] = T.Select(vi <= 4, A[vi], T.float32(-0.5)) + T.if_then_else(vi > 2, T.float32(1.0), A[vi])
            B[vi] = T.Cast("int32", T.log(A[vi])) + T.Add(1, 2)
