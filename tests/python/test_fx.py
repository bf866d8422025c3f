"""rlx.relax.frontend.torch.from_fx against PyTorch (torch 1.13, torch.fx.symbolic_trace):
torchvision's ResNet-18, MobileNetV2 and SqueezeNet 1.1, a 2-block transformer encoder on a
symbolic batch, weights as parameters (detach_params), the functional and method forms, the
list of unsupported nodes; and the MLC course's hand-written importer (call_function_map /
call_module_map emitting TE, topi and high-level ops). Tolerance: max abs error <= 1e-4 of
the output's largest magnitude."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.fx  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import rlx as tvm  # noqa: E402
from rlx import relax, te, topi  # noqa: E402
from rlx.relax.frontend import detach_params  # noqa: E402
from rlx.relax.frontend.torch import from_fx  # noqa: E402
from expected_tvm import TVM_COURSE_MLP_OPS, TVM_COURSE_MLP_TOPI, TVM_COURSE_MYMODEL  # noqa: E402


def close(out, ref, tol=1e-4):
    ref = ref.detach().numpy() if hasattr(ref, "detach") else ref
    scale = max(float(np.abs(ref).max()), 1e-6)
    err = float(np.abs(out - ref).max()) / scale
    assert out.shape == ref.shape and err <= tol, "error %.3g (shape %s vs %s)" % (err, out.shape, ref.shape)


def run(mod, *args):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    out = vm["main"](*[a.numpy() if hasattr(a, "numpy") else a for a in args])
    return tuple(o.numpy() for o in out) if isinstance(out, tuple) else out.numpy()


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "squeezenet1_1"])
def test_torchvision_cnns(name):
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)(weights=None).eval()
    mod = from_fx(torch.fx.symbolic_trace(m), [((1, 3, 224, 224), "float32")])
    x = torch.randn(1, 3, 224, 224)
    close(run(mod, x), m(x))


class Block(nn.Module):
    def __init__(self, d=64, h=4):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, h, batch_first=True)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.fc1, self.fc2, self.act = nn.Linear(d, 4 * d), nn.Linear(4 * d, d), nn.GELU()

    def forward(self, x):
        x = self.ln1(x + self.attn(x, x, x)[0])
        return self.ln2(x + self.fc2(self.act(self.fc1(x))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


def test_transformer_encoder_symbolic_batch():
    torch.manual_seed(1)
    m = Encoder().eval()
    mod = from_fx(torch.fx.symbolic_trace(m), [(("batch", 16, 64), "float32")])
    assert 'R.Tensor(("batch", 16, 64), dtype="float32")' in mod.script()
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    for b in (1, 3):
        x = torch.randn(b, 16, 64)
        close(vm["main"](x.numpy()).numpy(), m(x))


def test_mha_sequence_first():
    torch.manual_seed(2)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(32, 2)

        def forward(self, q, k):
            return self.attn(q, k, k)[0]

    m = M().eval()
    mod = from_fx(torch.fx.symbolic_trace(m), [((5, 2, 32), "float32"), ((7, 2, 32), "float32")])
    q, k = torch.randn(5, 2, 32), torch.randn(7, 2, 32)
    close(run(mod, q, k), m(q, k))


def test_keep_params_as_input():
    torch.manual_seed(3)
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.LayerNorm(16), nn.Linear(16, 4)).eval()
    mod = from_fx(torch.fx.symbolic_trace(m), [((2, 8), "float32")], keep_params_as_input=True)
    assert 'R.func_attr({"num_input": 1})' in mod.script()
    mod, params = detach_params(mod)
    # after the inputs in the order of the parameters' names (TVM: 0.bias before 0.weight)
    assert [p.shape for p in params["main"]] == [(16,), (16, 8), (16,), (16,), (4,), (4, 16)]
    x = torch.randn(2, 8)
    close(run(mod, x, *params["main"]), m(x))


def test_mha_weights_become_params():
    # keep_params_as_input: the packed in-projection and the out-projection are parameters too,
    # in the order of the parameters' names (TVM's); nothing of the model stays a constant.
    torch.manual_seed(4)
    m = Block(d=32, h=2).eval()
    gm = torch.fx.symbolic_trace(m)
    mod = from_fx(gm, [((2, 6, 32), "float32")], keep_params_as_input=True)
    text = mod.script()
    assert 'R.func_attr({"num_input": 1})' in text
    assert "R.const([" not in text and "metadata[" not in text  # only scalars stay constants
    mod, params = detach_params(mod)
    named = [p for _, p in sorted(gm.named_parameters(), key=lambda kv: kv[0])]
    assert [p.shape for p in params["main"]] == [tuple(p.shape) for p in named]
    for got, want in zip(params["main"], named):
        np.testing.assert_array_equal(got.numpy(), want.detach().numpy())
    x = torch.randn(2, 6, 32)
    close(run(mod, x, *params["main"]), m(x))


@pytest.mark.parametrize("layer, shape", [
    (lambda: nn.Conv1d(3, 5, 3, stride=2, padding=1, dilation=1), (2, 3, 17)),
    (lambda: nn.Conv1d(4, 6, 3, groups=2, dilation=2), (1, 4, 16)),
    (lambda: nn.Conv3d(2, 4, (3, 2, 3), stride=(1, 2, 1), padding=(1, 0, 1)), (1, 2, 6, 7, 8)),
    (lambda: nn.ConvTranspose1d(3, 4, 4, stride=2, padding=1), (2, 3, 9)),
    (lambda: nn.ConvTranspose1d(4, 6, 3, stride=3, output_padding=1, groups=2), (1, 4, 5)),
    (lambda: nn.ConvTranspose2d(3, 5, 3, stride=2, padding=1, output_padding=1), (2, 3, 7, 6)),
    (lambda: nn.ConvTranspose2d(4, 4, (2, 3), stride=(2, 1), dilation=(1, 2), groups=4), (1, 4, 5, 5)),
    (lambda: nn.AvgPool2d(3, stride=2, padding=1), (2, 3, 9, 10)),
    (lambda: nn.AvgPool2d(2, stride=2, ceil_mode=True, count_include_pad=False), (1, 2, 7, 7)),
    (lambda: nn.AvgPool2d((3, 2), stride=1, padding=(1, 0), count_include_pad=False), (1, 2, 5, 6)),
])
def test_conv_pool_modules(layer, shape):
    torch.manual_seed(5)
    m = nn.Sequential(layer()).eval()
    x = torch.randn(*shape)
    close(run(from_fx(torch.fx.symbolic_trace(m), [(shape, "float32")]), x), m(x))
    if any(isinstance(c, (nn.Conv1d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose2d)) for c in m):
        mod, params = detach_params(from_fx(torch.fx.symbolic_trace(m), [(shape, "float32")],
                                            keep_params_as_input=True))
        close(run(mod, x, *params["main"]), m(x))


class Interp(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x):
        return F.interpolate(x, **self.kw)


@pytest.mark.parametrize("kw", [
    dict(scale_factor=2, mode="nearest"),
    dict(size=(7, 5), mode="nearest"),
    dict(scale_factor=2, mode="bilinear", align_corners=False),
    dict(size=(9, 4), mode="bilinear", align_corners=False),
    dict(size=(9, 11), mode="bilinear", align_corners=True),
])
def test_interpolate(kw):
    torch.manual_seed(6)
    m = Interp(**kw).eval()
    x = torch.randn(2, 3, 5, 6)
    close(run(from_fx(torch.fx.symbolic_trace(m), [((2, 3, 5, 6), "float32")]), x), m(x))


class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.bn_alone = nn.BatchNorm2d(8)
        self.emb = nn.Embedding(10, 6)
        self.gn = nn.GroupNorm(2, 8)

    def forward(self, x, idx):
        y = self.bn(self.conv(x))
        y = F.relu6(y) + torch.sigmoid(y) * 2.0 - y / 3
        y = self.gn(self.bn_alone(y))
        parts = torch.chunk(y, 2, dim=1)
        c = torch.cat([parts[1], parts[0]], dim=1).permute(0, 2, 3, 1)
        d = c.reshape(c.size(0), -1, 8).transpose(1, 2)
        e = F.softmax(d, dim=-1).mean(dim=2, keepdim=True)
        f = torch.stack([e[:, :4, 0], e[..., 4:, 0]], dim=1)
        g = F.leaky_relu(f, 0.1) + F.hardswish(f) + F.gelu(f)
        h = self.emb(idx).unsqueeze(1).sum(-1)
        return g.flatten(1), h, e[:, None, 2:5:2].squeeze(1)


def test_functional_and_method_forms():
    torch.manual_seed(4)
    m = Functional().eval()
    with torch.no_grad():
        for bn in (m.bn, m.bn_alone):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 1.5)
    mod = from_fx(torch.fx.symbolic_trace(m), [((2, 4, 5, 5), "float32"), ((2, 3), "int64")])
    x, idx = torch.randn(2, 4, 5, 5), torch.tensor([[1, 2, 3], [9, 0, 4]])
    outs = run(mod, x, idx)
    refs = m(x, idx)
    assert len(outs) == 3
    for o, r in zip(outs, refs):
        close(o, r)


def test_unsupported_nodes_are_listed_at_once():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.PixelShuffle(2)

        def forward(self, x):
            return torch.cumprod(self.up(x), 1) + torch.fliplr(x)[:, :1, :2, :2].repeat(1, 1, 2, 2)

    with pytest.raises(NotImplementedError) as e:
        from_fx(torch.fx.symbolic_trace(M()), [((1, 4, 2, 2), "float32")])
    msg = str(e.value)
    assert "3 unsupported nodes" in msg
    for needle in ("call_module up (node up): module PixelShuffle", "call_function cumprod (node cumprod)",
                   "call_function fliplr (node fliplr)"):
        assert needle in msg


def test_input_count_mismatch():
    m = nn.Linear(3, 2)
    with pytest.raises(ValueError, match="the graph has 1 inputs, input_info gives 2"):
        from_fx(torch.fx.symbolic_trace(m), [((1, 3), "float32"), ((1, 3), "float32")])


# ---- the MLC course's importer, written by the user: walk fx_module.graph.nodes, map each
# ---- call_function / call_module through a table, emit through the BlockBuilder

def te_matmul(A, B):
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((A.shape[0], B.shape[1]), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")


def te_relu(A):
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")


def map_param(param):
    return relax.const(param.data.cpu().numpy(), "float32")


def fetch_attr(fx_mod, target):
    attr = fx_mod
    for part in target.split("."):
        attr = getattr(attr, part)
    return attr


def course_from_fx(fx_mod, input_shapes, call_function_map, call_module_map):
    input_index = 0
    node_map = {}
    named_modules = dict(fx_mod.named_modules())
    bb = relax.BlockBuilder()
    fn_inputs = []
    fn_output = None
    with bb.function("main"):
        with bb.dataflow():
            for node in fx_mod.graph.nodes:
                if node.op == "placeholder":
                    shape = input_shapes[input_index]
                    input_index += 1
                    var = relax.Var(node.target, relax.TensorStructInfo(shape, "float32"))
                    fn_inputs.append(var)
                    node_map[node] = var
                elif node.op == "get_attr":
                    node_map[node] = map_param(fetch_attr(fx_mod, node.target))
                elif node.op == "call_function":
                    node_map[node] = call_function_map[node.target](bb, node_map, node)
                elif node.op == "call_module":
                    named_module = named_modules[node.target]
                    node_map[node] = call_module_map[type(named_module)](bb, node_map, node, named_module)
                elif node.op == "output":
                    output = node_map[node.args[0]]
                    assert fn_output is None
                    fn_output = bb.emit_output(output)
        bb.emit_func_output(output, fn_inputs)
    return bb.get()


class MyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(128, 128))

    def forward(self, x):
        return torch.relu(torch.matmul(x, self.weight))


def map_matmul(bb, node_map, node):
    return bb.emit_te(te_matmul, node_map[node.args[0]], node_map[node.args[1]])


def map_relu(bb, node_map, node):
    return bb.emit_te(te_relu, node_map[node.args[0]])


def map_nn_relu_te(bb, node_map, node, nn_mod):
    return map_relu(bb, node_map, node)


def map_nn_linear_topi(bb, node_map, node, nn_mod):
    x = node_map[node.args[0]]
    w = map_param(nn_mod.weight)
    b = map_param(nn_mod.bias) if nn_mod.bias is not None else None
    y = bb.emit_te(topi.nn.dense, x, w)
    return bb.emit_te(topi.add, y, b)


def map_nn_linear_op(bb, node_map, node, nn_mod):
    x = node_map[node.args[0]]
    w = map_param(nn_mod.weight)
    b = map_param(nn_mod.bias) if nn_mod.bias is not None else None
    return bb.emit(relax.op.linear(x, w, b))


def map_nn_relu_op(bb, node_map, node, nn_mod):
    return bb.emit(relax.op.nn.relu(node_map[node.args[0]]))


def test_course_matmul_relu():
    torch.manual_seed(5)
    model = MyModel()
    mod = course_from_fx(torch.fx.symbolic_trace(model), [(1, 128)], {torch.matmul: map_matmul, torch.relu: map_relu}, {})
    text = mod.script()
    body = text[text.index("@I.ir_module"):]
    assert body.startswith(TVM_COURSE_MYMODEL), body
    x = torch.randn(1, 128)
    close(run(mod, x), model(x))


class CourseMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear0 = nn.Linear(784, 128, bias=True)
        self.relu = nn.ReLU()
        self.linear1 = nn.Linear(128, 10, bias=True)

    def forward(self, x):
        x = self.linear0(x)
        x = self.relu(x)
        x = self.linear1(x)
        return x


@pytest.mark.parametrize("linear,relu", [(map_nn_linear_topi, map_nn_relu_te), (map_nn_linear_op, map_nn_relu_op)])
def test_course_mlp(linear, relu):
    torch.manual_seed(6)
    mlp = CourseMLP().eval()
    mod = course_from_fx(torch.fx.symbolic_trace(mlp), [(1, 784)], {}, {nn.Linear: linear, nn.ReLU: relu})
    text = mod.script()
    body = text[text.index("@I.ir_module"):]
    want = TVM_COURSE_MLP_TOPI if linear is map_nn_linear_topi else TVM_COURSE_MLP_OPS
    assert body == want + "\n# Metadata omitted. Use show_meta=True in script() method to show it.", body
    x = torch.randn(1, 784)
    close(run(mod, x), mlp(x))


def test_show_meta_round_trip():
    # with show_meta the constants' data come along: the text parses back and runs the same
    # (the course's modules return a dataflow var, which TVM prints but does not parse)
    torch.manual_seed(7)
    mlp = CourseMLP().eval()
    mod = from_fx(torch.fx.symbolic_trace(mlp), [((1, 784), "float32")])
    assert 'metadata["relax.expr.Constant"][3]' in mod.script()
    meta = mod.script(show_meta=True)
    assert meta.startswith('metadata = tvm.ir.load_json("""') and "Metadata omitted" not in meta
    again = tvm.script.from_source(meta)
    assert again.script(show_meta=True) == meta
    x = torch.randn(1, 784)
    np.testing.assert_array_equal(run(again, x), run(mod, x))
    close(run(again, x), mlp(x))


def test_function_output_dataflow_var_must_be_published():
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    bb = relax.BlockBuilder()
    with pytest.raises(tvm.RLXError, match="output is DataflowVar lv1, which is not visible outside its dataflow block"):
        with bb.function("main", params=[x]):
            with bb.dataflow():
                lv = bb.emit(relax.op.nn.relu(x))
                lv1 = bb.emit(relax.op.exp(lv))
                bb.emit_output(lv)
            bb.emit_func_output(lv1)


class _Blas(nn.Module):
    def forward(self, c, a, b, d):
        y = torch.addmm(c, a, b, beta=0.8, alpha=0.5) + torch.addmm(d, a, b)
        return torch.lerp(y, torch.rsub(y, 2.0), c) + torch.norm(a, p=3) + torch.norm(b)


class _Methods(nn.Module):
    def forward(self, x, m):
        u = torch.unbind(x, dim=1)
        y = u[0].float() + torch.narrow(x, 1, 1, 1).squeeze(1) + torch.select(x, 1, 2) + x.new_ones(4)
        z = y.clone()
        z.masked_fill_(m, 1.5)
        return z + x.tile((1, 2)).sum(1) + x.type_as(y).sum(1)


def test_blas_lerp_norm_and_in_place_methods():
    # addmm with and without alpha and beta, rsub, lerp, p-norms, unbind, narrow, select,
    # new_ones, an in-place masked_fill_ seen by later uses, tile, type_as: numbers vs torch
    torch.manual_seed(0)
    c, a, b, d = (torch.randn(4, 4) for _ in range(4))
    m = _Blas().eval()
    mod = from_fx(torch.fx.symbolic_trace(m), [((4, 4), "float32")] * 4)
    close(run(mod, c, a, b, d), m(c, a, b, d))
    x, mask = torch.randn(4, 3), torch.randn(4) > 0
    m2 = _Methods().eval()
    mod2 = from_fx(torch.fx.symbolic_trace(m2), [((4, 3), "float32"), ((4,), "bool")])
    close(run(mod2, x, mask), m2(x, mask))
    assert "R.full_like" in mod2.script() and "R.where" in mod2.script()


def test_prelu_and_leaky_relu_ops():
    # nn.PReLU (one slope per channel) and F.leaky_relu become R.nn.prelu / R.nn.leakyrelu
    torch.manual_seed(0)
    m = nn.Sequential(nn.PReLU(3, init=0.2), nn.LeakyReLU(0.05)).eval()
    with torch.no_grad():
        m[0].weight.copy_(torch.tensor([0.1, 0.5, 2.0]))
    mod = from_fx(torch.fx.symbolic_trace(m), [((2, 3, 4), "float32")])
    assert "R.nn.prelu(" in mod.script() and "R.nn.leakyrelu(" in mod.script(), mod.script()
    x = torch.randn(2, 3, 4)
    close(run(mod, x), m(x))


class _Parts(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.InstanceNorm2d(3, affine=True)
        self.emb = nn.Embedding(10, 4)

    def forward(self, x, i):
        s = torch.split(self.norm(x), 1, dim=1)
        a, b, c = s[0], s[1], s[2]
        t = x.chunk(2, dim=3)
        p, q = t[0], t[1]
        y = torch.div(a, b + 3.0, rounding_mode="floor") + torch.div(c, b + 3.0, rounding_mode="trunc")
        return y.unsqueeze(-1).sum() + (p - q).sum() + self.emb(i).sum()


def test_split_instance_norm_embedding_div_modes():
    # split / chunk into equal parts (a Relax tuple read by getitem), InstanceNorm2d, an
    # embedding with int32 indices, floor and trunc division, unsqueeze(-1): numbers vs torch
    torch.manual_seed(0)
    m = _Parts().eval()
    with torch.no_grad():
        m.norm.weight.uniform_(0.5, 1.5)
        m.norm.bias.uniform_(-0.5, 0.5)
    x, i = torch.randn(2, 3, 4, 4), torch.tensor([1, 7, 3])
    mod = from_fx(torch.fx.symbolic_trace(m), [((2, 3, 4, 4), "float32"), ((3,), "int64")])
    assert "R.nn.instance_norm(" in mod.script() and "indices_or_sections=3" in mod.script()
    close(run(mod, x, i.numpy()), m(x, i))
