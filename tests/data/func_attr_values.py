# T.func_attr values of every kind TVM prints: lists, nested dicts, floats, strings, bools.
# from tvm.script import tir as T

@T.prim_func
def dense(x: T.Buffer((T.int64(1), T.int64(4)), "float32"), B: T.Buffer((T.int64(2), T.int64(4)), "float32"), T_matmul_NT: T.Buffer((T.int64(1), T.int64(2)), "float32")):
    T.func_attr({"layout_free_buffers": [1], "tir.noalias": T.bool(True), "nested": {"a": [1, 2], "b": 1.5, "c": "s"}})
    for i0, i1, k in T.grid(T.int64(1), T.int64(2), T.int64(4)):
        with T.block("T_matmul_NT"):
            v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
            T.reads(x[v_i0, v_k], B[v_i1, v_k])
            T.writes(T_matmul_NT[v_i0, v_i1])
            with T.init():
                T_matmul_NT[v_i0, v_i1] = T.float32(0.0)
            T_matmul_NT[v_i0, v_i1] = T_matmul_NT[v_i0, v_i1] + x[v_i0, v_k] * B[v_i1, v_k]
