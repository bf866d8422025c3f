#!/usr/bin/env python3
"""Writes tests/reliability/sweep_cnn.onnx, the small convolutional network of the
allocation-failure sweep (alloc_fail_sweep.c, scenarios onnx, cnn and mlf): Conv 3->16 3x3
with bias, Relu, MaxPool 2x2, a grouped Conv 16->16 3x3 (groups 4: it stays a plain
convolution, legalized and scheduled), Conv 16->16 1x1, a residual Add, Relu, GlobalAveragePool,
Flatten through a Reshape whose target shape is computed from a Shape (folded at import),
Gemm 16->4 and an Add of a constant computed from two initializers (Mul, folded at
import), Softmax. Weights are fixed small values (no randomness: the file is the same on
every run). Also writes OUT_y.npy: the network's output for the input x[i] = ((5 i) mod 11
- 5) / 10 (i over the 192 elements of [1, 3, 8, 8], as alloc_fail_sweep.c makes it),
computed with PyTorch, the oracle of scenario cnn_run (tolerance 1e-5).

    make_sweep_onnx.py OUT.onnx"""
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper


def weights(shape, scale):
    n = int(np.prod(shape))
    return ((np.arange(n, dtype=np.float64) * 7 % 13 - 6) * scale).astype(np.float32).reshape(shape)


inits = [
    numpy_helper.from_array(weights((16, 3, 3, 3), 0.05), "w1"),
    numpy_helper.from_array(weights((16,), 0.1), "b1"),
    numpy_helper.from_array(weights((16, 4, 3, 3), 0.04), "wg"),
    numpy_helper.from_array(weights((16, 16, 1, 1), 0.03), "w2"),
    numpy_helper.from_array(weights((4, 16), 0.02), "w3"),
    numpy_helper.from_array(weights((4,), 0.1), "b3"),
    numpy_helper.from_array(np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32), "ca"),
    numpy_helper.from_array(np.array([0.5, 0.25, -0.5, 1], dtype=np.float32), "cb"),
    numpy_helper.from_array(np.array([0], dtype=np.int64), "i0"),
    numpy_helper.from_array(np.array([-1], dtype=np.int64), "m1"),
]
nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"]),
    helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "wg"], ["cg"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=4),
    helper.make_node("Conv", ["cg", "w2"], ["c2"], kernel_shape=[1, 1]),
    helper.make_node("Add", ["c2", "p1"], ["a2"]),
    helper.make_node("Relu", ["a2"], ["r2"]),
    helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
    helper.make_node("Shape", ["g"], ["gs"]),
    helper.make_node("Gather", ["gs", "i0"], ["n"], axis=0),
    helper.make_node("Concat", ["n", "m1"], ["flat"], axis=0),
    helper.make_node("Reshape", ["g", "flat"], ["f"]),
    helper.make_node("Gemm", ["f", "w3", "b3"], ["y0"], transB=1),
    helper.make_node("Mul", ["ca", "cb"], ["k"]),
    helper.make_node("Add", ["y0", "k"], ["y1"]),
    helper.make_node("Softmax", ["y1"], ["y"], axis=1),
]
graph = helper.make_graph(
    nodes, "sweep_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_sweep_onnx.py")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])

W = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in inits}
x = torch.from_numpy(((np.arange(192) * 5 % 11 - 5) / 10).astype(np.float32).reshape(1, 3, 8, 8))
with torch.no_grad():
    p1 = F.max_pool2d(F.relu(F.conv2d(x, W["w1"], W["b1"], padding=1)), 2, 2)
    cg = F.conv2d(p1, W["wg"], padding=1, groups=4)
    r2 = F.relu(F.conv2d(cg, W["w2"]) + p1)
    y0 = r2.mean((2, 3)) @ W["w3"].T + W["b3"]
    y = F.softmax(y0 + W["ca"] * W["cb"], dim=1)
np.save(sys.argv[1][: -len(".onnx")] + "_y.npy", y.numpy().astype(np.float32))
