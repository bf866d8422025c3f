"""rlx.relax.frontend.nn.op: tensor operators for nn modules (TVM's nn.op names). Each emits
one binding named after the op (its `name` argument) into the BlockBuilder of the method
being exported, and returns an nn.Tensor."""
import numpy as np

from ... import op as _op
from ...block_builder import BlockBuilder
from ...expr import TupleGetItem, const
from .core import Tensor


def _bb():
    bb = BlockBuilder.current()
    if bb is None:
        raise RuntimeError("nn.op: called outside export_tvm (no BlockBuilder is open)")
    return bb


def _emit(expr, name):
    return Tensor(_bb().emit(expr, name))


def _x(a, like=None):
    if isinstance(a, Tensor):
        return a._expr
    if isinstance(a, (int, float, bool)):
        dtype = like.dtype if isinstance(like, Tensor) else "float32"
        return const(np.array(a, dtype=dtype))
    return a


def _binary(fn, a, b, name):
    like = a if isinstance(a, Tensor) else b
    return _emit(fn(_x(a, like), _x(b, like)), name)


def add(a, b, name="add"):
    return _binary(_op.add, a, b, name)


def subtract(a, b, name="subtract"):
    return _binary(_op.subtract, a, b, name)


def multiply(a, b, name="mul"):
    return _binary(_op.multiply, a, b, name)


def divide(a, b, name="divide"):
    return _binary(_op.divide, a, b, name)


def maximum(a, b, name="maximum"):
    return _binary(_op.maximum, a, b, name)


def minimum(a, b, name="minimum"):
    return _binary(_op.minimum, a, b, name)


def matmul(a, b, out_dtype=None, name="matmul"):
    return _emit(_op.matmul(_x(a), _x(b), out_dtype=out_dtype or "void"), name)


def negative(x, name="neg"):
    return _emit(_op.negative(_x(x)), name)


def permute_dims(x, axes=None, name="permute_dims"):
    return _emit(_op.permute_dims(_x(x), axes=list(axes) if axes is not None else None), name)


def reshape(x, shape, name="reshape"):
    return _emit(_op.reshape(_x(x), list(shape)), name)


def astype(x, dtype, name="astype"):
    return _emit(_op.astype(_x(x), dtype=dtype), name)


def broadcast_to(x, shape, name="broadcast_to"):
    return _emit(_op.broadcast_to(_x(x), list(shape)), name)


def _unary(fn, default):
    def f(x, name=default):
        return _emit(fn(_x(x)), name)
    f.__name__ = default
    return f


relu = _unary(_op.nn.relu, "relu")
silu = _unary(_op.nn.silu, "silu")
sigmoid = _unary(_op.sigmoid, "sigmoid")
tanh = _unary(_op.tanh, "tanh")
exp = _unary(_op.exp, "exp")
sqrt = _unary(_op.sqrt, "sqrt")
square = _unary(_op.square, "square")


def gelu(x, approximate=None, name="gelu"):
    return _emit(_op.nn.gelu_tanh(_x(x)) if approximate == "tanh" else _op.nn.gelu(_x(x)), name)


def softmax(x, axis=-1, name="softmax"):
    return _emit(_op.nn.softmax(_x(x), axis=axis), name)


def sum(x, axis=None, keepdims=False, name="sum"):  # noqa: A001 - TVM's name
    return _emit(_op.sum(_x(x), axis=_axes(axis), keepdims=keepdims), name)


def mean(x, axis=None, keepdims=False, name="mean"):
    return _emit(_op.mean(_x(x), axis=_axes(axis), keepdims=keepdims), name)


def _axes(a):
    return None if a is None else (list(a) if isinstance(a, (list, tuple)) else [a])


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, name="layer_norm"):
    ns = list(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else [normalized_shape]
    w = _x(weight) if weight is not None else const(np.ones(ns, x.dtype))
    b = _x(bias) if bias is not None else const(np.zeros(ns, x.dtype))
    return _emit(_op.nn.layer_norm(_x(x), w, b, axes=list(range(-len(ns), 0)), epsilon=eps), name)


def rms_norm(x, weight, axes, epsilon=1e-5, name="rms_norm"):
    return _emit(_op.nn.rms_norm(_x(x), _x(weight), axes=_axes(axes), epsilon=epsilon), name)


def group_norm(x, num_groups, weight, bias, eps=1e-5, channel_axis=1, axes=None, name="group_norm"):
    axes = axes if axes is not None else list(range(2, x.ndim))
    return _emit(_op.nn.group_norm(_x(x), _x(weight), _x(bias), num_groups=num_groups, channel_axis=channel_axis,
                                   axes=axes, epsilon=eps), name)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, name="conv1d"):
    y = _emit(_op.nn.conv1d(_x(x), _x(weight), strides=[stride], padding=[padding], dilation=[dilation],
                            groups=groups), name)
    return y if bias is None else add(y, reshape(bias, [1, bias.shape[0], 1]))


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, name="conv2d"):
    pair = (lambda v: list(v) if isinstance(v, (list, tuple)) else [v, v])
    y = _emit(_op.nn.conv2d(_x(x), _x(weight), strides=pair(stride), padding=pair(padding), dilation=pair(dilation),
                            groups=groups), name)
    return y if bias is None else add(y, reshape(bias, [1, bias.shape[0], 1, 1]))


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, name="conv3d"):
    tri = (lambda v: list(v) if isinstance(v, (list, tuple)) else [v, v, v])
    y = _emit(_op.nn.conv3d(_x(x), _x(weight), strides=tri(stride), padding=tri(padding), dilation=tri(dilation),
                            groups=groups), name)
    return y if bias is None else add(y, reshape(bias, [1, bias.shape[0], 1, 1, 1]))


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1,
                     name="conv1d_transpose"):
    y = _emit(_op.nn.conv1d_transpose(_x(x), _x(weight), strides=[stride], padding=[padding],
                                      output_padding=[output_padding], dilation=[dilation], groups=groups), name)
    return y if bias is None else add(y, reshape(bias, [1, bias.shape[0], 1]))


def concat(xs, dim=0, name="concat"):
    return _emit(_op.concat([_x(t) for t in xs], axis=dim), name)


def split(x, indices_or_sections, axis=0, name="split"):
    t = _bb().emit(_op.split(_x(x), indices_or_sections=indices_or_sections, axis=axis), name)
    n = indices_or_sections if isinstance(indices_or_sections, int) else len(indices_or_sections) + 1
    return tuple(Tensor(_bb().emit(TupleGetItem(t, i), "%s_%d" % (name, i))) for i in range(n))


def take(x, indices, axis=None, name="take"):
    return _emit(_op.take(_x(x), _x(indices), axis=axis), name)


def zeros(shape, dtype="float32", name="zeros"):
    return _emit(_op.zeros(list(shape), dtype=dtype), name)


def full(shape, fill_value, dtype="float32", name="full"):
    return _emit(_op.full(list(shape), const(np.array(fill_value, dtype)), dtype=dtype), name)


def tensor_expr_op(tensor_expr_func, name_hint, args, attrs=None):
    """Emits the PrimFunc that the TE function makes from args (nn.Tensors stand for their
    Relax values), as BlockBuilder.emit_te does."""
    conv = [a._expr if isinstance(a, Tensor) else a for a in args]
    return Tensor(_bb().emit_te(tensor_expr_func, *conv, primfunc_name_hint=name_hint))
