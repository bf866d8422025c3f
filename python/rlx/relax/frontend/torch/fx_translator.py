"""from_fx: a torch.fx GraphModule (torch.fx.symbolic_trace) to a Relax IRModule, as TVM's
relax.frontend.torch.from_fx does. Weights become constants (or parameters after the inputs
with keep_params_as_input=True; relax.frontend.detach_params takes them off). BatchNorm in
eval mode right after a convolution is folded into the convolution's weight and bias (what
PyTorch's ONNX export does), elsewhere it becomes a per-channel scale and shift. Every node
the translator does not know is listed in one error (op, target, node name)."""
import math
import operator

import numpy as np

from .... import nd, te, tir
from ... import op as _op
from ...block_builder import BlockBuilder
from ...expr import Tuple, Var, const
from ... import struct_info as _si
from ...struct_info import TensorStructInfo
from .. import attach_params

_DTYPES = {"float32": "float32", "float": "float32", "float16": "float16", "float64": "float64",
           "int64": "int64", "int32": "int32", "bool": "bool", "int8": "int8", "uint8": "uint8"}


def _dtype_name(dt):
    s = str(dt)
    s = s[len("torch."):] if s.startswith("torch.") else s
    return _DTYPES.get(s, s)


def _int(e):
    try:
        return int(e)
    except (TypeError, ValueError):
        return e


# torch functions / tensor methods that are the Relax elementwise op of the same name
_ELEMENTWISE = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "floor", "round", "sin",
                "sinh", "sign", "square", "tan", "isnan", "isinf", "isfinite", "trunc", "logical_not", "exp",
                "log", "sqrt", "rsqrt", "erf", "abs", "tanh", "sigmoid")


def _pair(v, n=2):
    return list(v) if isinstance(v, (list, tuple)) else [v] * n


class _Unsupported(Exception):
    pass


class FXTranslator:
    def __init__(self, gm, input_info, keep_params_as_input, unwrap_unit_return_tuple, no_bind_return_tuple):
        import torch  # only needed here, so that rlx imports without torch
        self.torch = torch
        self.gm = gm
        self.input_info = input_info
        self.keep_params = keep_params_as_input
        self.unwrap_unit = unwrap_unit_return_tuple
        self.no_bind_tuple = no_bind_return_tuple
        self.modules = dict(gm.named_modules())
        self.env = {}
        self.sym = {}
        self.params = []  # (Var, numpy array, PyTorch order) when keep_params_as_input
        self.param_vars = {}
        # parameters after the inputs in the order of their names (TVM's importer sorts
        # named_parameters: conv.bias before conv.weight)
        self.param_order = {id(t): n for n, t in gm.named_parameters()}
        self.bb = None
        self.folded = {}  # BatchNorm node -> the conv node it was folded into

    # ---------------------------------------------------------------- helpers
    def dim(self, d):
        if isinstance(d, str):
            if d not in self.sym:
                self.sym[d] = tir.Var(d, "int64")
            return self.sym[d]
        return d

    def shape(self, x):
        vals = _si._values(x.struct_info)
        if vals is None:
            raise _Unsupported("a tensor of unknown shape")
        return [_int(v) for v in vals]

    def dtype(self, x):
        return x.struct_info.dtype

    def emit(self, e):
        return self.bb.emit(e)

    def weight(self, t, name):
        a = t.detach().cpu().numpy()
        if not self.keep_params:
            return const(a)
        key = id(t)
        if key not in self.param_vars:
            v = Var(name.replace(".", "_"), TensorStructInfo(list(a.shape), _dtype_name(a.dtype)))
            self.param_vars[key] = v
            self.params.append((v, a, self.param_order.get(key, name)))
        return self.param_vars[key]

    def arr_const(self, a):
        return const(a)

    def scalar(self, v, like):
        return const(np.array(v, dtype=self.dtype(like)))

    def operand(self, a, like=None):
        if isinstance(a, (int, float, bool)) and like is not None:
            return self.scalar(a, like)
        return a

    def binary(self, fn, a, b):
        if not hasattr(a, "struct_info") and not hasattr(b, "struct_info"):
            return _PY_BINARY[fn](a, b)
        like = a if hasattr(a, "struct_info") else b
        return self.emit(fn(self.operand(a, like), self.operand(b, like)))

    def axis(self, a, x):
        n = len(self.shape(x))
        return a + n if a < 0 else a

    # ---------------------------------------------------------------- modules
    def conv(self, node, m, x, transpose=False):
        w = m.weight.detach().cpu().numpy()
        b = None if m.bias is None else m.bias.detach().cpu().numpy()
        users = list(node.users)
        bn_types = (self.torch.nn.BatchNorm1d, self.torch.nn.BatchNorm2d, self.torch.nn.BatchNorm3d)
        if not transpose and not self.keep_params and len(users) == 1 and users[0].op == "call_module" and \
                isinstance(self.modules[users[0].target], bn_types):
            bn = self.modules[users[0].target]
            scale, shift = self.bn_affine(bn)
            w = w * scale.reshape((-1,) + (1,) * (w.ndim - 1))
            b = shift + (scale * b if b is not None else 0)
            self.folded[users[0]] = node
        nd_ = w.ndim - 2
        wv = self.arr_const(w.astype(np.float32)) if not self.keep_params else self.weight(m.weight, node.target + ".weight")
        kw = dict(strides=_pair(m.stride, nd_), dilation=_pair(m.dilation, nd_), groups=m.groups)
        pad = _pair(m.padding, nd_)
        if isinstance(m.padding, str):
            raise _Unsupported("padding='%s'" % m.padding)
        kw["out_dtype"] = self.dtype(x)  # as TVM's importer writes it
        if transpose:
            fn = {1: _op.nn.conv1d_transpose, 2: _op.nn.conv2d_transpose}[nd_]
            y = self.emit(fn(x, wv, padding=pad, output_padding=_pair(m.output_padding, nd_), **kw))
        else:
            fn = {1: _op.nn.conv1d, 2: _op.nn.conv2d, 3: _op.nn.conv3d}[nd_]
            y = self.emit(fn(x, wv, padding=pad, **kw))
        if b is not None:
            if node in self.folded.values():  # rlx's own folding: the bias as the layout pass expects it
                bv = self.arr_const(b.astype(np.float32).reshape((1, -1) + (1,) * nd_))
            else:  # TVM's form: the 1-D bias reshaped to (1, C, 1, ...) in the graph, then added
                bv = self.weight(m.bias, node.target + ".bias") if self.keep_params and m.bias is not None \
                    else self.arr_const(b.astype(np.float32))
                bv = self.emit(_op.reshape(bv, [1, b.shape[0]] + [1] * nd_))
            y = self.emit(_op.add(y, bv))
        return y

    def conv_function(self, kind, args, kwargs):
        """F.conv{1,2,3}d / F.conv_transpose{1,2}d(input, weight, bias, stride, padding, ...)."""
        nd_, transpose = kind
        names = ["input", "weight", "bias", "stride", "padding"] + \
            (["output_padding", "groups", "dilation"] if transpose else ["dilation", "groups"])
        a = dict(zip(names, args))
        a.update(kwargs)
        x, w, b = a["input"], a["weight"], a.get("bias")
        if isinstance(a.get("padding", 0), str):
            raise _Unsupported("padding='%s'" % a["padding"])
        kw = dict(strides=_pair(a.get("stride", 1), nd_), padding=_pair(a.get("padding", 0), nd_),
                  dilation=_pair(a.get("dilation", 1), nd_), groups=a.get("groups", 1), out_dtype=self.dtype(x))
        if transpose:
            fn = {1: _op.nn.conv1d_transpose, 2: _op.nn.conv2d_transpose}[nd_]
            y = self.emit(fn(x, w, output_padding=_pair(a.get("output_padding", 0), nd_), **kw))
        else:
            y = self.emit({1: _op.nn.conv1d, 2: _op.nn.conv2d, 3: _op.nn.conv3d}[nd_](x, w, **kw))
        if b is None:
            return y
        c = self.shape(b)[0]
        return self.emit(_op.add(y, self.emit(_op.reshape(b, [1, c] + [1] * nd_))))

    @staticmethod
    def bn_affine(bn):
        mean = bn.running_mean.detach().cpu().numpy().astype(np.float64)
        var = bn.running_var.detach().cpu().numpy().astype(np.float64)
        g = bn.weight.detach().cpu().numpy().astype(np.float64) if bn.weight is not None else np.ones_like(mean)
        beta = bn.bias.detach().cpu().numpy().astype(np.float64) if bn.bias is not None else np.zeros_like(mean)
        scale = g / np.sqrt(var + bn.eps)
        return scale.astype(np.float32), (beta - mean * scale).astype(np.float32)

    def batch_norm(self, m, x):
        scale, shift = self.bn_affine(m)
        n = len(self.shape(x))
        bshape = (1, -1) + (1,) * (n - 2)
        y = self.emit(_op.multiply(x, self.arr_const(scale.reshape(bshape))))
        return self.emit(_op.add(y, self.arr_const(shift.reshape(bshape))))

    def linear(self, x, w, b):
        dt = self.dtype(x)  # TVM's importer gives matmul out_dtype explicitly
        return self.emit(_op.linear(x, w, b, out_dtype=dt) if b is not None else _op.linear(x, w, out_dtype=dt))

    def mha(self, m, name, q, k, v, kwargs):
        """nn.MultiheadAttention (no masks, need_weights ignored): the attention output."""
        if kwargs.get("attn_mask") is not None or kwargs.get("key_padding_mask") is not None:
            raise _Unsupported("MultiheadAttention with masks")
        e, h = m.embed_dim, m.num_heads
        if not m._qkv_same_embed_dim:
            raise _Unsupported("MultiheadAttention with kdim/vdim")
        if not m.batch_first:  # (L, N, E) -> (N, L, E)
            q, k, v = (self.emit(_op.permute_dims(t, axes=[1, 0, 2])) for t in (q, k, v))
        # The packed projection, (3e, e) weight and (3e,) bias: constants sliced here, or
        # parameters (keep_params_as_input) sliced in the graph.
        def part(t, pname, i):
            if t is None:
                return None
            if not self.keep_params:
                return self.arr_const(t.detach().cpu().numpy()[i * e:(i + 1) * e])
            p = self.weight(t, name + "." + pname)
            return self.emit(_op.strided_slice(p, axes=[0], begin=[i * e], end=[(i + 1) * e]))
        outs = [self.linear(t, part(m.in_proj_weight, "in_proj_weight", i), part(m.in_proj_bias, "in_proj_bias", i))
                for i, t in enumerate((q, k, v))]
        nb, lq = self.shape(q)[0], self.shape(q)[1]
        lk = self.shape(k)[1]
        d = e // h
        qh = self.emit(_op.permute_dims(self.emit(_op.reshape(outs[0], [nb, lq, h, d])), axes=[0, 2, 1, 3]))
        kh = self.emit(_op.permute_dims(self.emit(_op.reshape(outs[1], [nb, lk, h, d])), axes=[0, 2, 3, 1]))
        vh = self.emit(_op.permute_dims(self.emit(_op.reshape(outs[2], [nb, lk, h, d])), axes=[0, 2, 1, 3]))
        s = self.emit(_op.multiply(self.emit(_op.matmul(qh, kh)), self.scalar(1.0 / math.sqrt(d), qh)))
        p = self.emit(_op.nn.softmax(s, axis=-1))
        o = self.emit(_op.matmul(p, vh))
        o = self.emit(_op.reshape(self.emit(_op.permute_dims(o, axes=[0, 2, 1, 3])), [nb, lq, e]))
        ow = self.weight(m.out_proj.weight, name + ".out_proj.weight")
        ob = self.weight(m.out_proj.bias, name + ".out_proj.bias") if m.out_proj.bias is not None else None
        o = self.linear(o, ow, ob)
        if not m.batch_first:
            o = self.emit(_op.permute_dims(o, axes=[1, 0, 2]))
        return (o, None)

    def call_module(self, node, args, kwargs):
        m = self.modules[node.target]
        nn = self.torch.nn
        x = args[0] if args else None
        if node in self.folded:
            return self.env[self.folded[node]]
        if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            return self.conv(node, m, x)
        if isinstance(m, (nn.ConvTranspose1d, nn.ConvTranspose2d)):
            return self.conv(node, m, x, transpose=True)
        if isinstance(m, nn.Linear):
            w = self.weight(m.weight, node.target + ".weight")  # weight before bias, as torch orders them
            b = None if m.bias is None else self.weight(m.bias, node.target + ".bias")
            return self.linear(x, w, b)
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
            return self.batch_norm(m, x)
        if isinstance(m, nn.LayerNorm):
            n = len(m.normalized_shape)
            axes = list(range(-n, 0))
            g = self.weight(m.weight, node.target + ".weight") if m.weight is not None else \
                self.arr_const(np.ones(m.normalized_shape, np.float32))
            b = self.weight(m.bias, node.target + ".bias") if m.bias is not None else \
                self.arr_const(np.zeros(m.normalized_shape, np.float32))
            return self.emit(_op.nn.layer_norm(x, g, b, axes=axes, epsilon=m.eps))
        if isinstance(m, nn.GroupNorm):
            nd_ = len(self.shape(x))
            g = self.weight(m.weight, node.target + ".weight")
            b = self.weight(m.bias, node.target + ".bias")
            return self.emit(_op.nn.group_norm(x, g, b, num_groups=m.num_groups, channel_axis=1,
                                               axes=list(range(2, nd_)), epsilon=m.eps))
        if isinstance(m, (nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)):
            if m.track_running_stats:
                raise _Unsupported("InstanceNorm with running statistics")
            c = self.shape(x)[1]
            g = self.weight(m.weight, node.target + ".weight") if m.affine else \
                self.arr_const(np.ones((c,), np.float32))
            b = self.weight(m.bias, node.target + ".bias") if m.affine else \
                self.arr_const(np.zeros((c,), np.float32))
            return self.emit(_op.nn.instance_norm(x, g, b, channel_axis=1, axes=list(range(2, len(self.shape(x)))),
                                                  epsilon=m.eps, center=True, scale=True))
        if isinstance(m, nn.Embedding):
            w = self.weight(m.weight, node.target + ".weight")
            return self.emit(_op.take(w, self.emit(_op.astype(x, "int32")), axis=0))  # int32 indices (TVM)
        if isinstance(m, nn.MultiheadAttention):
            q = args[0]
            k = args[1] if len(args) > 1 else kwargs.get("key", q)
            v = args[2] if len(args) > 2 else kwargs.get("value", k)
            return self.mha(m, node.target, q, k, v, kwargs)
        if isinstance(m, (nn.Dropout, nn.Identity)):
            return x
        if type(m).__name__ == "StochasticDepth" and type(m).__module__.startswith("torchvision"):
            return x
        if isinstance(m, nn.Flatten):
            return self.flatten(x, m.start_dim, m.end_dim)
        if isinstance(m, nn.Softmax):
            return self.emit(_op.nn.softmax(x, axis=m.dim))
        if isinstance(m, nn.LogSoftmax):
            return self.emit(_op.nn.log_softmax(x, axis=m.dim))
        if isinstance(m, nn.MaxPool2d):
            return self.max_pool2d(x, m.kernel_size, m.stride, m.padding, m.dilation, m.ceil_mode)
        if isinstance(m, nn.AvgPool2d):
            return self.avg_pool2d(x, m.kernel_size, m.stride, m.padding, m.ceil_mode, m.count_include_pad)
        if isinstance(m, nn.AdaptiveAvgPool2d):
            return self.emit(_op.nn.adaptive_avg_pool2d(x, output_size=_pair(m.output_size)))
        for nd_, (mx, av, ad) in ((1, (nn.MaxPool1d, nn.AvgPool1d, nn.AdaptiveAvgPool1d)),
                                  (3, (nn.MaxPool3d, nn.AvgPool3d, nn.AdaptiveAvgPool3d))):
            if isinstance(m, mx):
                return self.pool_nd(x, "max", nd_, m.kernel_size, m.stride, m.padding, m.dilation, m.ceil_mode)
            if isinstance(m, av):
                return self.pool_nd(x, "avg", nd_, m.kernel_size, m.stride, m.padding, 1, m.ceil_mode,
                                    m.count_include_pad)
            if isinstance(m, ad):
                fn = {1: _op.nn.adaptive_avg_pool1d, 3: _op.nn.adaptive_avg_pool3d}[nd_]
                return self.emit(fn(x, output_size=_pair(m.output_size, nd_)))
        if isinstance(m, nn.PReLU):
            return self.prelu(x, self.weight(m.weight, node.target + ".weight"))
        if isinstance(m, nn.LeakyReLU):
            return self.leaky_relu(x, m.negative_slope)
        if isinstance(m, nn.ReLU6):
            return self.emit(_op.clip(x, 0.0, 6.0))
        if isinstance(m, nn.GELU):
            return self.emit(_op.nn.gelu_tanh(x) if m.approximate == "tanh" else _op.nn.gelu(x))
        unary = {nn.ReLU: _op.nn.relu, nn.SiLU: _op.nn.silu, nn.Sigmoid: _op.sigmoid, nn.Tanh: _op.tanh}
        for t, fn in unary.items():
            if type(m) is t:
                return self.emit(fn(x))
        if isinstance(m, nn.Hardswish):
            return self.hardswish(x)
        if isinstance(m, nn.Hardsigmoid):
            return self.hardsigmoid(x)
        raise _Unsupported("module %s" % type(m).__name__)

    # ---------------------------------------------------------------- ops shared by forms
    def flatten(self, x, start=0, end=-1):
        sh = self.shape(x)
        n = len(sh)
        start, end = start % n if n else 0, end % n if n else 0
        mid = 1
        for d in sh[start:end + 1]:
            mid = mid * d
        return self.emit(_op.reshape(x, sh[:start] + [mid] + sh[end + 1:]))

    def max_pool2d(self, x, k, s, p, d=1, ceil=False):
        k = _pair(k)
        s = _pair(s) if s else k
        p = _pair(p)
        return self.emit(_op.nn.max_pool2d(x, pool_size=k, strides=s, padding=[p[0], p[1], p[0], p[1]],
                                           dilation=_pair(d), ceil_mode=bool(ceil)))

    def pool_nd(self, x, kind, nd_, k, s, p, d=1, ceil=False, count_include_pad=True):
        """Max / average pooling over nd_ (1 or 3) spatial dims: padding befores then afters."""
        k = _pair(k, nd_)
        s = _pair(s, nd_) if s else k
        p = _pair(p, nd_)
        if kind == "max":
            fn = {1: _op.nn.max_pool1d, 3: _op.nn.max_pool3d}[nd_]
            return self.emit(fn(x, pool_size=k, strides=s, padding=p + p, dilation=_pair(d, nd_),
                                ceil_mode=bool(ceil)))
        fn = {1: _op.nn.avg_pool1d, 3: _op.nn.avg_pool3d}[nd_]
        return self.emit(fn(x, pool_size=k, strides=s, padding=p + p, dilation=_pair(1, nd_), ceil_mode=bool(ceil),
                            count_include_pad=bool(count_include_pad)))

    def avg_pool2d(self, x, k, s, p, ceil=False, count_include_pad=True):
        k = _pair(k)
        s = _pair(s) if s else k
        p = _pair(p)
        return self.emit(_op.nn.avg_pool2d(x, pool_size=k, strides=s, padding=[p[0], p[1], p[0], p[1]],
                                           ceil_mode=bool(ceil), count_include_pad=bool(count_include_pad)))

    def interpolate(self, x, size=None, scale_factor=None, mode="nearest", align_corners=None,
                    recompute_scale_factor=None):
        """F.interpolate over the trailing (spatial) dims, modes nearest and (bi)linear, as a TE
        kernel: PyTorch's source coordinates (scale in/out from size, 1/scale_factor when
        given and not recomputed; half-pixel or align_corners for linear)."""
        if mode not in ("nearest", "linear", "bilinear"):
            raise _Unsupported("interpolate mode '%s'" % mode)
        sh = self.shape(x)
        nsp = len(sh) - 2
        if any(not isinstance(d, int) for d in sh[2:]):
            raise _Unsupported("interpolate over symbolic spatial dims")
        ins = list(sh[2:])
        if size is not None:
            outs = list(size) if isinstance(size, (list, tuple)) else [size] * nsp
            scales = [i / o for i, o in zip(ins, outs)]
        else:
            sfs = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * nsp
            outs = [int(math.floor(i * f)) for i, f in zip(ins, sfs)]
            scales = [i / o for i, o in zip(ins, outs)] if recompute_scale_factor else [1.0 / f for f in sfs]
        if align_corners:
            scales = [(i - 1) / (o - 1) if o > 1 else 0.0 for i, o in zip(ins, outs)]
        dt = self.dtype(x)

        def f32(e):
            return tir.Cast("float32", e)

        def i64(e):
            return tir.Cast("int64", e)

        def kernel(data):
            def at(idx):
                return data(*idx)

            def body(*i):
                lead, sp = list(i[:2]), list(i[2:])
                if mode == "nearest":
                    src = [tir.min(i64(tir.floor(f32(o) * sc)), n - 1) for o, sc, n in zip(sp, scales, ins)]
                    return at(lead + src)
                taps = [[]]  # (index list, weight) pairs over the 2^nsp corners
                taps = [([], None)]
                for o, sc, n in zip(sp, scales, ins):
                    src = f32(o) * sc if align_corners else tir.max((f32(o) + 0.5) * sc - 0.5, 0.0)
                    i0 = i64(tir.floor(src))
                    i1 = tir.min(i0 + 1, n - 1)
                    lam = src - f32(i0)
                    taps = [(ix + [j], lam_w if w is None else w * lam_w)
                            for ix, w in taps for j, lam_w in ((i0, 1.0 - lam), (i1, lam))]
                acc = None
                for ix, w in taps:
                    v = f32(at(lead + ix)) * w
                    acc = v if acc is None else acc + v
                return tir.Cast(dt, acc) if dt != "float32" else acc
            return te.compute(list(sh[:2]) + outs, body, name="resize")

        return self.bb.emit_te(kernel, x, primfunc_name_hint="resize%dd" % nsp)

    def leaky_relu(self, x, a):
        return self.emit(_op.nn.leakyrelu(x, alpha=float(a)))

    def prelu(self, x, alpha):
        return self.emit(_op.nn.prelu(x, alpha, axis=1))

    def hardsigmoid(self, x):
        y = self.emit(_op.add(self.emit(_op.divide(x, self.scalar(6.0, x))), self.scalar(0.5, x)))
        return self.emit(_op.clip(y, 0.0, 1.0))

    def hardswish(self, x):
        return self.emit(_op.multiply(x, self.hardsigmoid(x)))

    def reshape(self, x, shape):
        shape = list(shape[0]) if len(shape) == 1 and isinstance(shape[0], (list, tuple)) else list(shape)
        if -1 in [s if isinstance(s, int) else None for s in shape]:
            total = 1
            for d in self.shape(x):
                total = total * d
            known = 1
            for s in shape:
                if not (isinstance(s, int) and s == -1):
                    known = known * s
            shape = [(total // known) if (isinstance(s, int) and s == -1) else s for s in shape]
            shape = [_int(s) for s in shape]
        return self.emit(_op.reshape(x, shape))

    def getitem(self, x, idx):
        if isinstance(x, (tuple, list)):
            return x[idx]
        if not hasattr(x, "struct_info"):
            return x[idx]
        if type(x.struct_info).__name__ == "TupleStructInfo" and isinstance(idx, int):
            return self.emit(_tuple_get(x, idx))  # an item of a Relax tuple (unbind, split)
        sh = self.shape(x)
        idx = idx if isinstance(idx, tuple) else (idx,)
        axes, begin, end, strides, squeeze, expand = [], [], [], [], [], []
        i = 0
        out_axis = 0
        n_real = sum(1 for t in idx if t is not None and t is not Ellipsis)
        for t in idx:
            if t is Ellipsis:
                skip = len(sh) - n_real
                i += skip
                out_axis += skip
            elif t is None:
                expand.append(out_axis)
                out_axis += 1
            elif isinstance(t, int):
                t = t + sh[i] if t < 0 else t
                axes.append(i), begin.append(t), end.append(t + 1), strides.append(1)
                squeeze.append(i)
                i += 1
            elif isinstance(t, slice):
                if t != slice(None):
                    st = 1 if t.step is None else t.step
                    b = 0 if t.start is None else t.start
                    e = sh[i] if t.stop is None else t.stop
                    axes.append(i), begin.append(b), end.append(e), strides.append(st)
                i += 1
                out_axis += 1
            else:
                raise _Unsupported("indexing with %s" % type(t).__name__)
        y = x
        if axes:
            y = self.emit(_op.strided_slice(y, axes=axes, begin=begin, end=end, strides=strides))
        if squeeze:
            y = self.emit(_op.squeeze(y, axis=squeeze))
        for a in expand:
            y = self.emit(_op.expand_dims(y, axis=a))
        return y

    def reduce(self, fn, x, dim=None, keepdim=False):
        axis = None if dim is None else (list(dim) if isinstance(dim, (list, tuple)) else [dim])
        return self.emit(fn(x, axis=axis, keepdims=bool(keepdim)))

    def split(self, x, size_or_sections, dim=0, chunks=False):
        sh = self.shape(x)
        n = sh[dim]
        if chunks:
            step = -(-n // size_or_sections)
            idx = list(range(step, n, step))
        elif isinstance(size_or_sections, int):
            idx = list(range(size_or_sections, n, size_or_sections))
        else:
            idx, acc = [], 0
            for s in size_or_sections[:-1]:
                acc += s
                idx.append(acc)
        parts = len(idx) + 1
        if isinstance(n, int) and n % parts == 0 and idx == [k * (n // parts) for k in range(1, parts)]:
            idx = parts  # equal parts: the count, as TVM's importer writes it
        # the Relax tuple itself (its items are read by the graph's getitem nodes)
        return self.emit(_op.split(x, indices_or_sections=idx, axis=dim))

    def transpose(self, x, a, b):
        n = len(self.shape(x))
        perm = list(range(n))
        perm[a % n], perm[b % n] = perm[b % n], perm[a % n]
        return self.emit(_op.permute_dims(x, axes=perm))

    # ---------------------------------------------------------------- functions / methods
    def call_function_getattr(self, obj, attr):
        if attr == "shape":
            return tuple(self.shape(obj)) if hasattr(obj, "struct_info") else obj.shape
        if attr == "dtype":
            return self.dtype(obj)
        raise _Unsupported("getattr %s" % attr)

    def call_function(self, node, args, kwargs):
        f = node.target
        t = self.torch
        F = t.nn.functional
        name = getattr(f, "__name__", str(f))
        if f is getattr:
            return self.call_function_getattr(*args)
        if f in (operator.getitem,):
            return self.getitem(args[0], args[1])
        binaries = {operator.add: _op.add, t.add: _op.add, operator.sub: _op.subtract, t.sub: _op.subtract,
                    operator.mul: _op.multiply, t.mul: _op.multiply, operator.truediv: _op.divide,
                    t.div: _op.divide, operator.floordiv: _op.floor_divide, operator.pow: _op.power,
                    t.pow: _op.power, t.maximum: _op.maximum, t.minimum: _op.minimum,
                    operator.mod: _op.floor_mod, t.remainder: _op.floor_mod, t.fmod: _op.mod,
                    operator.eq: _op.equal, operator.ne: _op.not_equal, operator.lt: _op.less,
                    operator.le: _op.less_equal, operator.gt: _op.greater, operator.ge: _op.greater_equal,
                    t.eq: _op.equal, t.ne: _op.not_equal, t.lt: _op.less, t.le: _op.less_equal, t.gt: _op.greater,
                    t.ge: _op.greater_equal, operator.and_: _op.bitwise_and, operator.or_: _op.bitwise_or,
                    operator.xor: _op.bitwise_xor, operator.lshift: _op.left_shift,
                    operator.rshift: _op.right_shift, t.bitwise_and: _op.bitwise_and, t.bitwise_or: _op.bitwise_or,
                    t.bitwise_xor: _op.bitwise_xor}
        aten = getattr(getattr(t, "ops", None), "aten", None)
        for an, afn in (("add", _op.add), ("sub", _op.subtract), ("mul", _op.multiply), ("div", _op.divide),
                        ("fmod", _op.mod), ("bitwise_or", _op.bitwise_or), ("bitwise_or_", _op.bitwise_or),
                        ("bitwise_and", _op.bitwise_and), ("bitwise_xor", _op.bitwise_xor)):
            if aten is not None and hasattr(aten, an):
                binaries[getattr(aten, an)] = afn
        if f is t.div and kwargs.get("rounding_mode") in ("trunc", "floor"):
            if kwargs["rounding_mode"] == "floor":
                return self.binary(_op.floor_divide, args[0], args[1])
            return self.emit(_op.trunc(self.binary(_op.divide, args[0], args[1])))
        if f in binaries:
            return self.binary(binaries[f], args[0], args[1])
        if f in (operator.neg, t.neg):
            return self.emit(_op.negative(args[0]))
        if f in (t.matmul, operator.matmul, t.bmm, t.mm):
            return self.emit(_op.matmul(args[0], args[1], out_dtype=self.dtype(args[0])))
        if f in (t.cat, t.concat):
            return self.emit(_op.concat(list(args[0]), axis=kwargs.get("dim", args[1] if len(args) > 1 else 0)))
        if f is t.stack:
            dim = kwargs.get("dim", args[1] if len(args) > 1 else 0)
            xs = [self.emit(_op.expand_dims(x, axis=dim)) for x in args[0]]
            return self.emit(_op.concat(xs, axis=dim))
        if f is t.flatten:
            return self.flatten(args[0], kwargs.get("start_dim", args[1] if len(args) > 1 else 0),
                                kwargs.get("end_dim", args[2] if len(args) > 2 else -1))
        if f is t.reshape:
            return self.reshape(args[0], args[1])
        if f is t.permute:
            return self.emit(_op.permute_dims(args[0], axes=list(args[1])))
        if f is t.transpose:
            return self.transpose(args[0], args[1], args[2])
        unary = {t.relu: _op.nn.relu, F.relu: _op.nn.relu, t.sigmoid: _op.sigmoid, F.sigmoid: _op.sigmoid,
                 t.tanh: _op.tanh, F.tanh: _op.tanh, t.exp: _op.exp, t.log: _op.log, t.sqrt: _op.sqrt,
                 t.rsqrt: _op.rsqrt, t.erf: _op.erf, F.silu: _op.nn.silu, t.abs: _op.abs}
        for ew in _ELEMENTWISE:  # torch.<name> of the Relax op of the same name (TVM's mapping)
            if getattr(t, ew, None) is not None and getattr(_op, ew, None) is not None:
                unary.setdefault(getattr(t, ew), getattr(_op, ew))
        if getattr(t, "bitwise_not", None) is not None and getattr(_op, "bitwise_not", None) is not None:
            unary.setdefault(t.bitwise_not, _op.bitwise_not)
        if f in unary:
            return self.emit(unary[f](args[0]))
        if f is F.gelu:
            return self.emit(_op.nn.gelu_tanh(args[0]) if kwargs.get("approximate") == "tanh" else _op.nn.gelu(args[0]))
        if f is F.relu6:
            return self.emit(_op.clip(args[0], 0.0, 6.0))
        if f is F.hardswish:
            return self.hardswish(args[0])
        if f is F.hardsigmoid:
            return self.hardsigmoid(args[0])
        if f is F.prelu:
            return self.prelu(args[0], args[1] if len(args) > 1 else kwargs["weight"])
        if f is F.leaky_relu:
            return self.leaky_relu(args[0], kwargs.get("negative_slope", args[1] if len(args) > 1 else 0.01))
        if f in (t.softmax, F.softmax, t.log_softmax, F.log_softmax):
            dim = kwargs.get("dim", args[1] if len(args) > 1 else -1)
            fn = _op.nn.softmax if f in (t.softmax, F.softmax) else _op.nn.log_softmax
            return self.emit(fn(args[0], axis=dim))
        if f in (F.dropout, t.dropout):
            return args[0]
        if f is F.interpolate:
            names = ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor")
            kw = dict(zip(names, args[1:]))
            kw.update({k: v for k, v in kwargs.items() if k in names})
            return self.interpolate(args[0], **kw)
        if f is F.adaptive_avg_pool2d:
            return self.emit(_op.nn.adaptive_avg_pool2d(args[0], output_size=_pair(args[1] if len(args) > 1
                                                                                   else kwargs["output_size"])))
        if f is F.max_pool2d:
            k = args[1] if len(args) > 1 else kwargs["kernel_size"]
            return self.max_pool2d(args[0], k, kwargs.get("stride", args[2] if len(args) > 2 else None),
                                   kwargs.get("padding", args[3] if len(args) > 3 else 0))
        if f is F.linear:
            b = args[2] if len(args) > 2 else kwargs.get("bias")
            return self.linear(args[0], args[1], b)
        def arg(i, key, default=None):
            return args[i] if len(args) > i else kwargs.get(key, default)

        if f in (t.zeros_like, t.ones_like, t.empty_like):  # empty_like reads as zeros_like (TVM)
            fn = _op.ones_like if f is t.ones_like else _op.zeros_like
            dt = kwargs.get("dtype")
            return self.emit(fn(args[0], dtype=_dtype_name(dt) if dt is not None else None))
        if f in (t.argmax, t.argmin):
            fn = _op.argmax if f is t.argmax else _op.argmin
            return self.emit(fn(args[0], axis=arg(1, "dim"), keepdims=bool(arg(2, "keepdim", False))))
        if f in (t.std, t.var, t.prod) and len([a for a in args if hasattr(a, "struct_info")]) == 1:
            fn = {t.std: _op.std, t.var: _op.variance, t.prod: _op.prod}[f]
            dim = arg(1, "dim")
            dim = [dim] if isinstance(dim, int) else dim
            return self.emit(fn(args[0], axis=dim, keepdims=bool(arg(2, "keepdim", False))))
        if f is t.cumsum:
            dt = arg(2, "dtype")
            return self.emit(_op.cumsum(args[0], axis=arg(1, "dim"), dtype=_dtype_name(dt) if dt is not None else None))
        if f is t.flip:
            y = args[0]
            for d in list(arg(1, "dims")):
                y = self.emit(_op.flip(y, axis=d))
            return y
        if f is t.broadcast_to:
            return self.emit(_op.broadcast_to(args[0], list(arg(1, "size"))))
        if f in (t.max, t.min) and len(args) == 2 and hasattr(args[1], "struct_info"):
            return self.binary(_op.maximum if f is t.max else _op.minimum, args[0], args[1])
        if f is t.gather:
            return self.emit(_op.gather_elements(args[0], arg(2, "index"), axis=arg(1, "dim")))
        fpools = {F.max_pool1d: ("max", 1), F.max_pool3d: ("max", 3), F.avg_pool1d: ("avg", 1),
                  F.avg_pool3d: ("avg", 3)}
        if f in fpools:
            kind, nd_ = fpools[f]
            names = ["input", "kernel_size", "stride", "padding"] + \
                (["dilation", "ceil_mode"] if kind == "max" else ["ceil_mode", "count_include_pad"])
            a = dict(zip(names, args))
            a.update(kwargs)
            return self.pool_nd(a["input"], kind, nd_, a["kernel_size"], a.get("stride"), a.get("padding", 0),
                                a.get("dilation", 1), a.get("ceil_mode", False), a.get("count_include_pad", True))
        if f in (F.adaptive_avg_pool1d, F.adaptive_avg_pool3d):
            nd_ = 1 if f is F.adaptive_avg_pool1d else 3
            fn = {1: _op.nn.adaptive_avg_pool1d, 3: _op.nn.adaptive_avg_pool3d}[nd_]
            size = args[1] if len(args) > 1 else kwargs["output_size"]
            return self.emit(fn(args[0], output_size=_pair(size, nd_)))
        convs = {F.conv1d: (1, False), F.conv2d: (2, False), F.conv3d: (3, False),
                 F.conv_transpose1d: (1, True), F.conv_transpose2d: (2, True)}
        if f in convs:
            return self.conv_function(convs[f], args, kwargs)
        if f is F.layer_norm:
            x, ns = args[0], args[1]
            w = args[2] if len(args) > 2 else kwargs.get("weight")
            b = args[3] if len(args) > 3 else kwargs.get("bias")
            eps = kwargs.get("eps", args[4] if len(args) > 4 else 1e-5)
            ns = list(ns) if isinstance(ns, (list, tuple)) else [ns]
            w = w if w is not None else self.arr_const(np.ones(ns, np.float32))
            b = b if b is not None else self.arr_const(np.zeros(ns, np.float32))
            return self.emit(_op.nn.layer_norm(x, w, b, axes=list(range(-len(ns), 0)), epsilon=eps))
        if f in (t.mean, t.sum):
            fn = _op.mean if f is t.mean else _op.sum
            return self.reduce(fn, args[0], kwargs.get("dim", args[1] if len(args) > 1 else None),
                               kwargs.get("keepdim", args[2] if len(args) > 2 else False))
        if f in (t.squeeze, t.unsqueeze, t.chunk, t.split, t.where, t.tile, t.unbind, t.narrow, t.select, t.take,
                 t.numel, t.is_floating_point):
            return self.call_method_named(name, args, kwargs)
        if f in (t.addmm, t.baddbmm):
            return self.addmm(args[0], args[1], args[2], kwargs.get("beta", 1), kwargs.get("alpha", 1),
                              batched=f is t.baddbmm)
        if f is t.rsub:
            return self.binary(_op.subtract, args[1], args[0])
        if f is t.lerp:
            start, end, w = args[0], args[1], arg(2, "weight")
            d = self.emit(_op.subtract(end, start))
            return self.emit(_op.add(start, self.emit(_op.multiply(self.operand(w, start), d))))
        if f is F.one_hot:
            n = arg(1, "num_classes", -1)
            if n < 0:
                raise _Unsupported("one_hot without num_classes (the depth depends on the data)")
            from ...expr import PrimValue
            return self.emit(_op.one_hot(args[0], PrimValue(1), PrimValue(0), depth=n, axis=-1))
        if f is t.norm:
            return self.norm(args[0], arg(1, "p", "fro"), arg(2, "dim"), arg(3, "keepdim", False))
        sym_size = getattr(getattr(aten, "sym_size", None), "int", None) if aten is not None else None
        if sym_size is not None and f is sym_size:
            sh = self.shape(args[0])
            return self.emit(const(np.array(sh[args[1]], dtype="int32")))
        if name == "stochastic_depth" and getattr(f, "__module__", "").startswith("torchvision"):
            return args[0]  # an inference import: identity, as dropout in any mode
        raise _Unsupported("function %s" % name)

    def call_method(self, node, args, kwargs):
        y = self.call_method_named(node.target, args, kwargs)
        m = node.target
        if m.endswith("_") and not m.endswith("__") and node.args and hasattr(node.args[0], "op"):
            self.env[node.args[0]] = y  # an in-place method: later uses of its operand see the result
        return y

    def addmm(self, c, a, b, beta=1, alpha=1, batched=False):
        """torch.addmm / baddbmm: beta * c + alpha * (a @ b), a term left out when its factor is
        0 and a factor left out when it is 1 (TVM's importer's forms)."""
        p = self.emit(_op.matmul(a, b) if batched else _op.matmul(a, b, out_dtype=self.dtype(a)))
        if alpha != 1:
            p = self.emit(_op.multiply(p, self.scalar(alpha, p)))
        if beta == 0:
            return p
        if beta != 1:
            c = self.emit(_op.multiply(c, self.scalar(beta, c)))
        return self.emit(_op.add(p, c) if batched else _op.add(c, p))

    def norm(self, x, p="fro", dim=None, keepdim=False):
        """torch.norm: inf / -inf the max / min of |x|, "fro" sqrt(sum(x*x)), else
        sum(|x|^p)^(1/p)."""
        axis = None if dim is None else (list(dim) if isinstance(dim, (list, tuple)) else [dim])
        keepdim = keepdim and axis is not None  # torch.norm over all elements ignores keepdim
        if p == "fro":
            s = self.emit(_op.sum(self.emit(_op.multiply(x, x)), axis=axis, keepdims=bool(keepdim)))
            return self.emit(_op.sqrt(s))
        if not isinstance(p, (int, float)):
            raise _Unsupported("norm p=%r" % (p,))
        if math.isinf(p):
            fn = _op.max if p > 0 else _op.min
            return self.emit(fn(self.emit(_op.abs(x)), axis=axis, keepdims=bool(keepdim)))
        a = self.emit(_op.power(self.emit(_op.abs(x)), self.scalar(p, x)))
        s = self.emit(_op.sum(a, axis=axis, keepdims=bool(keepdim)))
        return self.emit(_op.power(s, self.scalar(1.0 / p, x)))

    def call_method_named(self, m, args, kwargs):
        x = args[0]
        rest = args[1:]
        if m in ("contiguous", "detach", "clone"):
            return x
        if m == "size":
            sh = self.shape(x)
            d = rest[0] if rest else kwargs.get("dim")
            return tuple(sh) if d is None else sh[d]
        if m in ("view", "reshape"):
            return self.reshape(x, rest)
        if m == "permute":
            return self.emit(_op.permute_dims(x, axes=list(rest[0]) if len(rest) == 1 else list(rest)))
        if m == "transpose":
            return self.transpose(x, rest[0], rest[1])
        if m == "flatten":
            return self.flatten(x, kwargs.get("start_dim", rest[0] if rest else 0),
                                kwargs.get("end_dim", rest[1] if len(rest) > 1 else -1))
        if m == "expand":
            shape = list(rest[0]) if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else list(rest)
            sh = self.shape(x)
            off = len(shape) - len(sh)
            shape = [sh[i - off] if (isinstance(s, int) and s == -1) else s for i, s in enumerate(shape)]
            return self.emit(_op.broadcast_to(x, shape))
        if m == "repeat":
            reps = list(rest[0]) if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else list(rest)
            return self.emit(_op.tile(x, repeats=reps))
        if m == "squeeze":
            d = rest[0] if rest else kwargs.get("dim")
            return self.emit(_op.squeeze(x, axis=None if d is None else [d]))
        if m == "unsqueeze":
            d = rest[0] if rest else kwargs["dim"]
            return self.emit(_op.expand_dims(x, axis=d))  # a negative axis as given (TVM's importer)
        if m == "chunk":
            return self.split(x, rest[0] if rest else kwargs["chunks"], kwargs.get("dim", rest[1] if len(rest) > 1
                                                                                      else 0), chunks=True)
        if m == "split":
            return self.split(x, rest[0] if rest else kwargs["split_size_or_sections"],
                              kwargs.get("dim", rest[1] if len(rest) > 1 else 0))
        if m in ("mean", "sum"):
            return self.reduce(_op.mean if m == "mean" else _op.sum, x, kwargs.get("dim", rest[0] if rest else None),
                               kwargs.get("keepdim", rest[1] if len(rest) > 1 else False))
        if m in ("max", "min", "argmax"):
            fn = {"max": _op.max, "min": _op.min, "argmax": _op.argmax}[m]
            d = kwargs.get("dim", rest[0] if rest else None)
            if m == "argmax":
                return self.emit(fn(x, axis=d, keepdims=bool(kwargs.get("keepdim", False))))
            return self.reduce(fn, x, d, kwargs.get("keepdim", False))
        if m == "softmax":
            return self.emit(_op.nn.softmax(x, axis=kwargs.get("dim", rest[0] if rest else -1)))
        if m == "where":
            return self.emit(_op.where(x, self.operand(rest[0], rest[1]), self.operand(rest[1], rest[0])))
        if m == "masked_fill":
            mask, v = rest[0], rest[1]
            return self.emit(_op.where(mask, self.scalar(v, x), x))
        if m in ("float", "half", "double", "int", "long", "bool"):
            dt = {"float": "float32", "half": "float16", "double": "float64", "int": "int32", "long": "int64",
                  "bool": "bool"}[m]
            return self.emit(_op.astype(x, dt))
        if m in ("type", "astype", "to"):
            dt = rest[0] if rest else kwargs.get("dtype")
            if dt is None or (isinstance(dt, str) and dt in ("cpu", "cuda")) or type(dt).__name__ == "device":
                return x  # a device move: nothing on one device
            return self.emit(_op.astype(x, _dtype_name(dt)))
        if m == "type_as":
            return self.emit(_op.astype(x, self.dtype(rest[0])))
        if m == "getattr":
            return self.call_function_getattr(x, rest[0])
        if m == "tile":
            reps = list(rest[0]) if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else list(rest)
            return self.emit(_op.tile(x, repeats=reps or list(kwargs["dims"])))
        if m == "unbind":
            d = rest[0] if rest else kwargs.get("dim", 0)
            n = self.shape(x)[d]
            t = self.emit(_op.split(x, indices_or_sections=n, axis=d))
            items = [self.emit(_op.squeeze(self.emit(_tuple_get(t, i)), axis=[d])) for i in range(n)]
            return self.emit(Tuple(items))
        if m == "narrow":
            d, start, length = (list(rest) + [kwargs.get(k) for k in ("dim", "start", "length")][len(rest):])[:3]
            return self.emit(_op.strided_slice(x, axes=[d], begin=[start], end=[start + length]))
        if m == "select":
            d, i = (list(rest) + [kwargs.get(k) for k in ("dim", "index")][len(rest):])[:2]
            return self.emit(_op.take(x, const(np.array(i, dtype="int64")), axis=d))
        if m == "item":
            return self.emit(_op.take(x, const(np.array(0, dtype="int64")), axis=0))
        if m == "take":
            idx = rest[0] if rest else kwargs["index"]
            return self.emit(_op.take(x, self.emit(_op.astype(idx, "int32"))))
        if m == "numel":
            n = 1
            for d in self.shape(x):
                n = n * d
            return const(np.array(n, dtype="int32"))
        if m == "is_floating_point":
            return const(np.array(self.dtype(x).startswith(("float", "bfloat")), dtype="bool"))
        if m in ("new_ones", "new_zeros"):
            size = list(rest[0]) if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else list(rest)
            dt = self.dtype(x)
            v = 1 if m == "new_ones" else 0.0
            return self.emit(_op.full(size, self.scalar(v, x), dtype=dt))
        if m == "fill_":
            dt = self.dtype(x)
            from ...expr import ShapeExpr
            return self.emit(_op.full(ShapeExpr(self.shape(x)), self.scalar(rest[0], x), dtype=dt))
        if m == "zero_":
            return self.emit(_op.zeros_like(x))
        if m == "copy_":
            return rest[0]
        if m == "masked_fill_":
            mask, v = rest[0], rest[1]
            full = self.emit(_op.full_like(x, self.scalar(v, x)))
            return self.emit(_op.where(mask, full, x))
        unary = {"relu": _op.nn.relu, "sigmoid": _op.sigmoid, "tanh": _op.tanh, "exp": _op.exp, "log": _op.log,
                 "sqrt": _op.sqrt, "rsqrt": _op.rsqrt, "neg": _op.negative, "abs": _op.abs}
        if m in unary:
            return self.emit(unary[m](x))
        if m in _ELEMENTWISE and getattr(_op, m, None) is not None:
            return self.emit(getattr(_op, m)(x))
        binaries = {"add": _op.add, "sub": _op.subtract, "mul": _op.multiply, "div": _op.divide, "pow": _op.power,
                    "matmul": _op.matmul}
        if m in binaries:
            return self.binary(binaries[m], x, rest[0])
        raise _Unsupported("method %s" % m)

    # ---------------------------------------------------------------- driver
    def translate(self):
        graph = self.gm.graph
        # every node the translator cannot handle, listed at once (checked by kind first)
        bad = [n for n in graph.nodes if n.op not in ("placeholder", "get_attr", "call_module", "call_function",
                                                      "call_method", "output")]
        if bad:
            raise _unsupported_error([(n.op, str(n.target), n.name) for n in bad])
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(self.input_info):
            raise ValueError("from_fx: the graph has %d inputs, input_info gives %d" %
                             (len(placeholders), len(self.input_info)))
        inputs = []
        for n, (shape, dtype) in zip(placeholders, self.input_info):
            v = Var(n.name, TensorStructInfo([self.dim(d) for d in shape], _dtype_name(dtype)))
            self.env[n] = v
            inputs.append(v)
        self.bb = BlockBuilder()
        failures = []
        out = None
        attrs = {"num_input": len(inputs)} if self.keep_params else None
        with self.bb.function("main", attrs=attrs):
            with self.bb.dataflow():
                for n in graph.nodes:
                    if n.op in ("placeholder",):
                        continue
                    args = _map(n.args, self.env)
                    kwargs = _map(n.kwargs, self.env)
                    try:
                        if n.op == "get_attr":
                            t = _fetch_attr(self.gm, n.target)
                            self.env[n] = self.weight(t, n.target) if hasattr(t, "detach") else t
                        elif n.op == "call_module":
                            self.env[n] = self.call_module(n, args, kwargs)
                        elif n.op == "call_function":
                            self.env[n] = self.call_function(n, args, kwargs)
                        elif n.op == "call_method":
                            self.env[n] = self.call_method(n, args, kwargs)
                        elif n.op == "output":
                            out = args[0]
                    except _Unsupported as e:
                        failures.append((n.op, _target_name(n), n.name, str(e)))
                        self.env[n] = None
                    except (TypeError, AttributeError) as e:
                        if failures:  # a consequence of an earlier unsupported node
                            self.env[n] = None
                            continue
                        raise
                if failures:
                    raise _unsupported_error(failures)
                if isinstance(out, (tuple, list)) and out and all(not hasattr(o, "struct_info") for o in out):
                    from ...expr import ShapeExpr
                    gv = self.bb.emit_output(ShapeExpr(list(out)))  # a returned size(): R.shape (TVM)
                elif isinstance(out, (tuple, list)) and self.no_bind_tuple and not (len(out) == 1 and self.unwrap_unit):
                    # each item its own output; the function returns the tuple of them unbound
                    gv = Tuple([self.bb.emit_output(o) for o in out])
                elif isinstance(out, (tuple, list)):
                    if len(out) == 1 and self.unwrap_unit:
                        gv = self.bb.emit_output(out[0])
                    else:
                        gv = self.bb.emit_output(Tuple(list(out)))
                else:
                    gv = self.bb.emit_output(out)
            self.params.sort(key=lambda p: p[2])
            params = inputs + [v for v, _, _ in self.params]
            self.bb.emit_func_output(gv, params=params)
        mod = self.bb.get()
        if self.keep_params:
            attach_params(mod, {"main": [nd.array(a) for _, a, _ in self.params]})
        return mod


def _tuple_get(t, i):
    from ...expr import TupleGetItem
    return TupleGetItem(t, i)


_PY_BINARY = {_op.add: operator.add, _op.subtract: operator.sub, _op.multiply: operator.mul,
              _op.divide: operator.truediv, _op.floor_divide: operator.floordiv, _op.power: operator.pow,
              _op.maximum: max, _op.minimum: min, _op.matmul: operator.matmul}


def _map(a, env):
    import torch.fx
    if isinstance(a, torch.fx.Node):
        return env[a]
    if isinstance(a, (list, tuple)):
        return type(a)(_map(x, env) for x in a)
    if isinstance(a, dict):
        return {k: _map(v, env) for k, v in a.items()}
    return a


def _fetch_attr(gm, target):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _target_name(n):
    t = n.target
    if isinstance(t, str):
        return t
    return getattr(t, "__name__", str(t))


def _unsupported_error(items):
    lines = ["  %s %s (node %s)%s" % (op, tgt, name, (": " + why[0]) if why else "") for op, tgt, name, *why in items]
    return NotImplementedError("from_fx: %d unsupported node%s:\n%s" % (len(items), "" if len(items) == 1 else "s",
                                                                       "\n".join(lines)))


def from_fx(model, input_info, keep_params_as_input=False, unwrap_unit_return_tuple=False,
            no_bind_return_tuple=False):
    """A torch.fx.GraphModule to an IRModule with one Relax function "main".

    input_info: a list of (shape, dtype), one per graph input; a dim may be an int, a string
    (a symbolic var of that name) or a tir.Var."""
    return FXTranslator(model, input_info, keep_params_as_input, unwrap_unit_return_tuple,
                        no_bind_return_tuple).translate()
