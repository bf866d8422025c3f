#!/usr/bin/env python3
"""Makes the bundled example network: examples/cnn.onnx, a small image classifier (a
CIFAR-sized 3x32x32 input, 4 convolutions with batch norm, ReLU and a residual connection,
global average pooling, a 10-way linear layer; ~94k parameters, ~370 KB), with a fixed input
(cnn_input.npy) and PyTorch's output for it (cnn_output.npy). The weights are random but
seeded, so running this again gives the same files. Needs PyTorch and onnx; the files it
makes are committed, so using the example needs neither."""
import os

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(32, 64, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
        self.block = Block(64)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.block(self.down(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def main():
    torch.manual_seed(0)
    model = SmallCNN()
    # non-trivial batch-norm statistics, so that folding them is exercised
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    model.eval()
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32))
    with torch.no_grad():
        y = model(x)
    torch.onnx.export(model, x, os.path.join(HERE, "cnn.onnx"), input_names=["image"], output_names=["logits"],
                      opset_version=13)
    np.save(os.path.join(HERE, "cnn_input.npy"), x.numpy())
    np.save(os.path.join(HERE, "cnn_output.npy"), y.numpy())
    n_params = sum(p.numel() for p in model.parameters())
    print("cnn.onnx: %d parameters, %d bytes" % (n_params, os.path.getsize(os.path.join(HERE, "cnn.onnx"))))


if __name__ == "__main__":
    main()
