"""rlx.relax.frontend.nn: nn.Module export (TVM's printed text), running with parameters on two
batch sizes, modules and ops against numpy, and extern modules (SourceModule in both of TVM's
forms, multi-output and named-dtype extensions, their errors)."""
import numpy as np
import pytest

import rlx as tvm
from rlx import relax
from rlx.relax.frontend import nn
from rlx.relax.frontend.nn import spec

# TVM's printed module for this MLP (docs: deep_dive/relax/tutorials/relax_transformation,
# `origin_mod.show()`), as far as the published page shows it.
TVM_MLP_PREFIX = '''# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def forward(x: R.Tensor(("n", 784), dtype="float32"), fc1_weight: R.Tensor((128, 784), dtype="float32"), fc1_bias: R.Tensor((128,), dtype="float32"), fc2_weight: R.Tensor((10, 128), dtype="float32"), fc2_bias: R.Tensor((10,), dtype="float32")) -> R.Tensor(("n", 10), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            permute_dims: R.Tensor((784, 128), dtype="float32") = R.permute_dims(fc1_weight, axes=None)
            matmul: R.Tensor((n, 128), dtype="float32") ='''


class NNModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        return x


def test_mlp_export_prints_as_tvm_and_runs_on_two_batches(capsys):
    mod, params = NNModule().export_tvm({"forward": {"x": nn.spec.Tensor(("n", 784), "float32")}})
    mod.show()
    out = capsys.readouterr().out
    assert out.startswith(TVM_MLP_PREFIX), out[:1200]
    assert [n for n, _ in params] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal(p.shape) * 0.1).astype("float32") for _, p in params]
    for b in (1, 7):
        x = rng.standard_normal((b, 784)).astype("float32")
        ref = np.maximum(x @ ws[0].T + ws[1], 0) @ ws[2].T + ws[3]
        np.testing.assert_allclose(vm["forward"](x, *ws).numpy(), ref, rtol=1e-4, atol=1e-5)


class Blocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(11, 8)
        self.layers = nn.ModuleList([nn.Linear(8, 8), nn.Linear(8, 8, bias=False)])
        self.ln = nn.LayerNorm(8)
        self.rms = nn.RMSNorm(8, axes=-1, bias=False)
        self.act = nn.SiLU()
        self.conv = nn.Conv2D(2, 4, 3, padding=1)
        self.gn = nn.GroupNorm(2, 4)

    def forward(self, ids, img):
        h = self.emb(ids)
        for layer in self.layers:
            h = self.act(layer(h))
        h = self.rms(self.ln(h)) * 2.0 + 1.0
        a, b = nn.op.split(h, 2, axis=-1)
        s = nn.op.softmax(nn.op.concat([b, a], dim=-1), axis=-1)
        c = self.gn(nn.op.gelu(self.conv(img)))
        return s, nn.op.mean(c, axis=[2, 3])


def np_ln(x, g, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def test_modules_and_ops_against_numpy():
    from math import erf
    model = Blocks()
    mod, params = model.export_tvm({"forward": {"ids": spec.Tensor(("b", 5), "int64"),
                                                "img": spec.Tensor((1, 2, 6, 6), "float32")}})
    text = mod.script()
    assert 'R.func_attr({"num_input": 2})' in text and "layers_0_weight" in text
    rng = np.random.default_rng(1)
    ws = {n: (rng.standard_normal(p.shape) * 0.3).astype("float32") for n, p in params}
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    ids = np.array([[1, 2, 3, 4, 10], [0, 0, 5, 6, 7]], "int64")
    img = rng.standard_normal((1, 2, 6, 6)).astype("float32")
    s, c = vm["forward"](ids, img, *[ws[n] for n, _ in params])

    def silu(v):
        return v / (1 + np.exp(-v))

    h = ws["emb.weight"][ids]
    h = silu(h @ ws["layers.0.weight"].T + ws["layers.0.bias"])
    h = silu(h @ ws["layers.1.weight"].T)
    h = np_ln(h, ws["ln.weight"], ws["ln.bias"])
    h = h / np.sqrt((h * h).mean(-1, keepdims=True) + 1e-5) * ws["rms.weight"]
    h = h * 2 + 1
    e = np.concatenate([h[..., 4:], h[..., :4]], -1)
    e = np.exp(e - e.max(-1, keepdims=True))
    np.testing.assert_allclose(s.numpy(), e / e.sum(-1, keepdims=True), rtol=1e-4, atol=1e-5)
    # conv (padding 1) + bias, exact gelu, group norm (2 groups), mean over H, W
    w, bconv = ws["conv.weight"], ws["conv.bias"]
    xp = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((1, 4, 6, 6), "float64")
    for o in range(4):
        for i in range(6):
            for j in range(6):
                y[0, o, i, j] = (xp[0, :, i:i + 3, j:j + 3] * w[o]).sum() + bconv[o]
    y = y * 0.5 * (1 + np.vectorize(erf)(y / np.sqrt(2)))
    g = y.reshape(1, 2, 2, 6, 6)
    g = (g - g.mean((2, 3, 4), keepdims=True)) / np.sqrt(g.var((2, 3, 4), keepdims=True) + 1e-5)
    g = g.reshape(1, 4, 6, 6) * ws["gn.weight"][None, :, None, None] + ws["gn.bias"][None, :, None, None]
    np.testing.assert_allclose(c.numpy(), g.mean((2, 3)), rtol=1e-4, atol=1e-5)


# ---- extern modules ------------------------------------------------------------------------

SOURCE = r'''
#include <dlpack/dlpack.h>
#include <tvm/runtime/data_type.h>
#include <tvm/runtime/packed_func.h>

namespace {

void scalar_add(DLTensor* a, DLTensor* b, DLTensor* c) {
  ICHECK_EQ(a->ndim, 0);
  ICHECK_EQ(b->ndim, 0);
  ICHECK_EQ(c->ndim, 0);
  static_cast<float*>(c->data)[0] = static_cast<float*>(a->data)[0] + static_cast<float*>(b->data)[0];
}

// a: (x, y, 1), b: (y, z, 5) -> c: (x, y, z, 9) with c[i, j, k, l] = a[i, j, 0] + b[j, k, l % 5]
void test_sym(DLTensor* a, DLTensor* b, DLTensor* c) {
  ICHECK_EQ(a->ndim, 3);
  ICHECK_EQ(b->ndim, 3);
  ICHECK_EQ(c->ndim, 4);
  ICHECK_EQ(a->shape[2], 1);
  ICHECK_EQ(b->shape[2], 5);
  int64_t x = a->shape[0], y = a->shape[1], z = b->shape[1];
  ICHECK_EQ(b->shape[0], y);
  ICHECK(c->shape[0] == x && c->shape[1] == y && c->shape[2] == z && c->shape[3] == 9);
  const float* pa = static_cast<const float*>(a->data);
  const float* pb = static_cast<const float*>(b->data);
  float* pc = static_cast<float*>(c->data);
  for (int64_t i = 0; i < x; i++)
    for (int64_t j = 0; j < y; j++)
      for (int64_t k = 0; k < z; k++)
        for (int64_t l = 0; l < 9; l++)
          pc[((i * y + j) * z + k) * 9 + l] = pa[i * y + j] + pb[(j * z + k) * 5 + l % 5];
}

}  // namespace

TVM_DLL_EXPORT_TYPED_FUNC(ext_scalar_add, scalar_add);
TVM_DLL_EXPORT_TYPED_FUNC(ext_test_sym, test_sym);
'''


class ExtModel(nn.Module):
    def __init__(self, ext):
        super().__init__()
        self.ext = ext

    def scalar_add(self, a, b):
        return self.ext.get_extern_func("ext_scalar_add")(a, b)

    def test_sym(self, a, b):
        return self.ext.get_extern_func("ext_test_sym")(a, b)


EXT_SPEC = {"scalar_add": {"a": spec.Tensor((), "float32"), "b": spec.Tensor((), "float32")},
            "test_sym": {"a": spec.Tensor(("x", "y", 1), "float32"), "b": spec.Tensor(("y", "z", 5), "float32")}}


def check_ext(mod):
    text = mod.script()
    assert 'R.call_dps_packed("ext_scalar_add", (a, b), out_sinfo=R.Tensor((), dtype="float32"))' in text
    assert 'R.call_dps_packed("ext_test_sym", (a, b), out_sinfo=R.Tensor((x, y, z, 9), dtype="float32"))' in text
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    s = vm["scalar_add"](np.array(1.5, "float32"), np.array(2.25, "float32")).numpy()
    assert s.shape == () and float(s) == 3.75
    rng = np.random.default_rng(2)
    for x, y, z in ((2, 3, 4), (1, 5, 2)):
        a = rng.standard_normal((x, y, 1)).astype("float32")
        b = rng.standard_normal((y, z, 5)).astype("float32")
        c = vm["test_sym"](a, b).numpy()
        ref = a[:, :, None, :] + b[None, :, :, np.arange(9) % 5]
        np.testing.assert_array_equal(c, ref)


def test_source_module_first_form():
    ext = nn.SourceModule(
        source_code=SOURCE, source_format="cpp",
        functions={"ext_scalar_add": spec.ExternFunctionSpec(
                       args=[spec.Tensor((), "float32"), spec.Tensor((), "float32")], ret=spec.Tensor((), "float32")),
                   "ext_test_sym": spec.ExternFunctionSpec(
                       args=[spec.Tensor(("x", "y", 1), "float32"), spec.Tensor(("y", "z", 5), "float32")],
                       ret=spec.Tensor(("x", "y", "z", 9), "float32"))})
    mod, _ = ExtModel(ext).export_tvm(EXT_SPEC)
    check_ext(mod)


def test_source_module_symbols_form_and_export_library(tmp_path):
    def sym_shape(a, b):
        x, y, _ = a.shape
        _, z, _ = b.shape
        return nn.Tensor.placeholder((x, y, z, 9), "float32")

    ext = nn.SourceModule({"ext_scalar_add": lambda a, b: nn.Tensor.placeholder((), "float32"),
                           "ext_test_sym": sym_shape}, SOURCE, "cpp")
    mod, _ = ExtModel(ext).export_tvm(EXT_SPEC)
    check_ext(mod)
    path = str(tmp_path / "ext.so")
    relax.build(mod).export_library(path)
    vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    assert float(vm["scalar_add"](np.array(1.0, "float32"), np.array(2.0, "float32")).numpy()) == 3.0


MULTI = r'''
#include "rlx/extern.h"
#include <string.h>
/* (pos, neg) = (max(x, 0), min(x, 0)) for float32 and float64 tensors of any shape */
static int split_sign(DLTensor* x, DLTensor* pos, DLTensor* neg) {
  int64_t n = 1;
  for (int i = 0; i < x->ndim; i++) n *= x->shape[i];
  for (int64_t i = 0; i < n; i++) {
    if (x->dtype.bits == 64) {
      double v = ((double*)x->data)[i];
      ((double*)pos->data)[i] = v > 0 ? v : 0;
      ((double*)neg->data)[i] = v < 0 ? v : 0;
    } else {
      float v = ((float*)x->data)[i];
      ((float*)pos->data)[i] = v > 0 ? v : 0;
      ((float*)neg->data)[i] = v < 0 ? v : 0;
    }
  }
  return 0;
}
RLX_EXPORT_DPS_3(ext_split_sign, split_sign)
'''


class SignModel(nn.Module):
    def __init__(self, ext):
        super().__init__()
        self.ext = ext

    def forward(self, a, b):
        f = self.ext.get_extern_func("ext_split_sign")
        pa, na = f(a)
        pb, nb = f(b)
        return pa, na, pb, nb


def sign_ext():
    t = spec.Tensor(("n", "m"), "T")
    return nn.SourceModule(MULTI, "c", {"ext_split_sign": spec.ExternFunctionSpec(args=[t], ret=[t, t])})


def test_multi_output_and_named_dtype():
    mod, _ = SignModel(sign_ext()).export_tvm({"forward": {"a": spec.Tensor((2, 3), "float32"),
                                                           "b": spec.Tensor(("k", 4), "float64")}})
    text = mod.script()
    assert ('R.call_dps_packed("ext_split_sign", (a,), out_sinfo=[R.Tensor((2, 3), dtype="float32"), '
            'R.Tensor((2, 3), dtype="float32")])') in text
    assert ('R.call_dps_packed("ext_split_sign", (b,), out_sinfo=[R.Tensor((k, 4), dtype="float64"), '
            'R.Tensor((k, 4), dtype="float64")])') in text
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    a = np.array([[1, -2, 3], [-4, 5, -6]], "float32")
    b = np.linspace(-1, 1, 12).reshape(3, 4)
    outs = vm["forward"](a, b)
    refs = (np.maximum(a, 0), np.minimum(a, 0), np.maximum(b, 0), np.minimum(b, 0))
    for o, r in zip(outs, refs):
        assert o.numpy().dtype == r.dtype
        np.testing.assert_array_equal(o.numpy(), r)


def test_extern_spec_errors():
    ext = nn.SourceModule(SOURCE, "cpp", {"ext_test_sym": spec.ExternFunctionSpec(
        args=[spec.Tensor(("x", "y", 1), "float32"), spec.Tensor(("y", "z", 5), "float32")],
        ret=spec.Tensor(("x", "y", "w", 9), "float32"))})

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.ext = ext

        def forward(self, a, b):
            return self.ext.get_extern_func("ext_test_sym")(a, b)

    with pytest.raises(ValueError, match="extern 'ext_test_sym': dim 'y' is 3 in one argument and 4 in another"):
        M().export_tvm({"forward": {"a": spec.Tensor((2, 3, 1), "float32"), "b": spec.Tensor((4, 5, 5), "float32")}})
    with pytest.raises(ValueError, match="extern 'ext_test_sym': result dim 'w' is not bound by any argument"):
        M().export_tvm({"forward": {"a": spec.Tensor((2, 3, 1), "float32"), "b": spec.Tensor((3, 5, 5), "float32")}})
    with pytest.raises(ValueError, match="dtype 'T' is float32 in one argument and float64 in another"):
        t = spec.Tensor(("n",), "T")
        e2 = nn.SourceModule(MULTI, "c", {"f": spec.ExternFunctionSpec(args=[t, t], ret=t)})

        class M2(nn.Module):
            def __init__(self):
                super().__init__()
                self.e = e2

            def forward(self, a, b):
                return self.e.get_extern_func("f")(a, b)

        M2().export_tvm({"forward": {"a": spec.Tensor((3,), "float32"), "b": spec.Tensor((3,), "float64")}})
    with pytest.raises(ValueError, match="has no symbol 'nope'"):
        ext.get_extern_func("nope")
    with pytest.raises(ValueError, match="source_format must be 'c', 'cpp' or 'cu'"):
        nn.SourceModule("int x;", "rust", {})


def test_conv3d_and_conv_transpose1d_modules():
    # nn.Conv3D and nn.ConvTranspose1D (TVM's modules) against torch's functional forms
    torch = pytest.importorskip("torch")

    class Net(nn.Module):
        def __init__(self):
            self.c3 = nn.Conv3D(2, 3, 2, bias=True)
            self.t1 = nn.ConvTranspose1D(3, 2, 3, stride=2, bias=True)

        def forward(self, x, y):
            return self.c3(x), self.t1(y)

    mod, params = Net().export_tvm(spec={"forward": {"x": spec.Tensor([1, 2, 4, 4, 4], "float32"),
                                                     "y": spec.Tensor([1, 3, 5], "float32")}})
    rng = np.random.default_rng(1)
    ws = {n: rng.standard_normal([int(d) for d in p.shape]).astype("float32") for n, p in params}
    x = rng.standard_normal((1, 2, 4, 4, 4)).astype("float32")
    y = rng.standard_normal((1, 3, 5)).astype("float32")
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    a, b = vm["forward"](x, y, *[ws[n] for n, _ in params])
    t = {k: torch.from_numpy(v) for k, v in ws.items()}
    ra = torch.nn.functional.conv3d(torch.from_numpy(x), t["c3.weight"], t["c3.bias"])
    rb = torch.nn.functional.conv_transpose1d(torch.from_numpy(y), t["t1.weight"], t["t1.bias"], stride=2)
    np.testing.assert_allclose(a.numpy(), ra.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.numpy(), rb.numpy(), rtol=1e-4, atol=1e-5)
