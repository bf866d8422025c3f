# from tvm.script import tir as T

@T.prim_func
def lowered(a: T.handle, b: T.handle, D: T.Buffer((), "float64"), E: T.Buffer((8,), "int8")):
    T.func_attr({"global_symbol": "lowered_kernel", "tir.noalias": T.bool(True)})
    n = T.int64()
    A = T.match_buffer(a, (n, 4))
    B = T.match_buffer(b, (n, 4), strides=(4, 1))
    m = T.int32()
    for i in range(n):
        for j in range(m, m + 4):
            B[i, j - m] = A[i, j - m] + T.float32(1.0)
    x: T.int32 = m * 2
    if x > 3:
        B[0, 0] = T.float32(1.0)
    else:
        B[0, 1] = T.float32(-1.0)
    with T.LetStmt(x + 1) as y:
        B[0, y] = T.Cast("float32", y)
    for i in range(4):
        X = T.decl_buffer((4,), "int32", scope="local")
        X[i] = i
        B[0, i] = T.Cast("float32", X[i])
    T.exp(T.float32(1.0))
    T.evaluate(0)
    B[0, 0:4] = T.Broadcast(T.float32(0.0), 4)
    B[0, 0:8:2] = A[0, 0:4] * T.Broadcast(T.float32(0.5), 4)
    A_1 = T.Buffer((n * T.int64(4),), data=a)
    A_1[T.int64(0):T.int64(16):T.int64(4)] = T.Broadcast(T.float32(2.0), 4)
    v = T.int32()
    D[()] = T.float64(0.10000000000000001) + T.Cast("float64", T.Let(v * v, where={v: x}))
    E[0] = T.int8(-58)
    E[1] = T.Select(T.bool(False), T.int8(1), T.int8(2))
    D[()] = T.float64(11909882132348510716246666248192.0)
    D[()] = T.pow(D[()], T.float64(2.0)) + T.fmod(D[()], T.float64(3.0)) + T.fabs(T.floor(D[()]))
