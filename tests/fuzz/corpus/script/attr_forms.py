# Seed: op attributes in TVM's short forms (widened by the parser) and a buffer as a block
# attribute value (T.block_attr({"layout_free_placeholders": [C]})).
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(A: T.Buffer((4, 4), "float32"), D: T.Buffer((4, 4), "float32")):
        C = T.alloc_buffer((4, 4))
        for x, y in T.grid(4, 4):
            with T.block("C"):
                v_x, v_y = T.axis.remap("SS", [x, y])
                C[v_x, v_y] = A[v_x, v_y]
        for x, y in T.grid(4, 4):
            with T.block("D"):
                v_x, v_y = T.axis.remap("SS", [x, y])
                T.reads(C[v_x, v_y])
                T.writes(D[v_x, v_y])
                T.block_attr({"layout_free_placeholders": [C], "k": [1, {"a": C}]})
                D[v_x, v_y] = C[v_x, v_y] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32")):
        gv = R.nn.conv2d(x, w, strides=1, padding=[1, 1], dilation=1)
        gv1 = R.nn.max_pool2d(gv, pool_size=2, strides=2, padding=1)
        gv2 = R.nn.avg_pool1d(R.reshape(gv1, R.shape([1, 4, 25])), pool_size=3, padding=[1])
        gv3 = R.sum(gv2, axis=1, keepdims=True)
        gv4 = R.split(x, indices_or_sections=2, axis=2)
        gv5 = R.nn.conv3d(R.reshape(x, R.shape([1, 3, 8, 8, 1])), R.reshape(w, R.shape([4, 3, 3, 3, 1])), padding=(1, 1, 0))
        gv6 = R.take(x, R.const([0, 1], "int64"), axis=1)
        gv7 = R.tile(x, repeats=2)
        return (gv3, gv4, gv5, gv6, gv7)
