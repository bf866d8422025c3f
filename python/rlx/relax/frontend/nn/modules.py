"""rlx.relax.frontend.nn modules (TVM's names and arguments): Linear, Conv1D, Conv2D,
Conv3D, ConvTranspose1D, LayerNorm, RMSNorm, GroupNorm, Embedding and the activations."""
from . import op
from .core import Module, Parameter


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, dtype=None, out_dtype=None):
        super().__init__()
        self.in_features, self.out_features, self.out_dtype = in_features, out_features, out_dtype
        self.weight = Parameter((out_features, in_features), dtype or "float32")
        self.bias = Parameter((out_features,), dtype or "float32") if bias else None

    def forward(self, x):
        x = op.matmul(x, op.permute_dims(self.weight), out_dtype=self.out_dtype)
        return op.add(x, self.bias) if self.bias is not None else x


class Conv1D(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 dtype=None):
        super().__init__()
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.weight = Parameter((out_channels, in_channels // groups, kernel_size), dtype or "float32")
        self.bias = Parameter((out_channels,), dtype or "float32") if bias else None

    def forward(self, x):
        return op.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2D(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 dtype=None):
        super().__init__()
        k = list(kernel_size) if isinstance(kernel_size, (list, tuple)) else [kernel_size, kernel_size]
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.weight = Parameter((out_channels, in_channels // groups, k[0], k[1]), dtype or "float32")
        self.bias = Parameter((out_channels,), dtype or "float32") if bias else None

    def forward(self, x):
        return op.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv3D(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 dtype=None):
        super().__init__()
        k = list(kernel_size) if isinstance(kernel_size, (list, tuple)) else [kernel_size] * 3
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.weight = Parameter((out_channels, in_channels // groups, k[0], k[1], k[2]), dtype or "float32")
        self.bias = Parameter((out_channels,), dtype or "float32") if bias else None

    def forward(self, x):
        return op.conv3d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class ConvTranspose1D(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, bias=True, dtype=None):
        super().__init__()
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.dilation, self.groups = dilation, groups
        self.weight = Parameter((in_channels, out_channels // groups, kernel_size), dtype or "float32")
        self.bias = Parameter((out_channels,), dtype or "float32") if bias else None

    def forward(self, x):
        return op.conv1d_transpose(x, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                   self.dilation, self.groups)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, dtype=None):
        super().__init__()
        self.normalized_shape = normalized_shape
        self.eps = eps
        shape = normalized_shape if isinstance(normalized_shape, (list, tuple)) else (normalized_shape,)
        self.weight = Parameter(shape, dtype or "float32") if elementwise_affine else None
        self.bias = Parameter(shape, dtype or "float32") if elementwise_affine else None

    def forward(self, x):
        return op.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class RMSNorm(Module):
    def __init__(self, hidden_size, axes, epsilon=1e-5, bias=True, dtype=None):
        super().__init__()
        self.axes, self.epsilon = axes, epsilon
        self.weight = Parameter((hidden_size,), dtype or "float32")
        self.bias = Parameter((hidden_size,), dtype or "float32") if bias else None

    def forward(self, x):
        y = op.rms_norm(x, self.weight, self.axes, self.epsilon)
        return op.add(y, self.bias) if self.bias is not None else y


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, dtype=None):
        super().__init__()
        self.num_groups, self.eps = num_groups, eps
        self.weight = Parameter((num_channels,), dtype or "float32") if affine else None
        self.bias = Parameter((num_channels,), dtype or "float32") if affine else None

    def forward(self, x):
        return op.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)


class Embedding(Module):
    def __init__(self, num, dim, dtype=None):
        super().__init__()
        self.num, self.dim = num, dim
        self.weight = Parameter((num, dim), dtype or "float32")

    def forward(self, x):
        if x.ndim == 1:
            return op.take(self.weight, x, axis=0)
        flat = op.reshape(x, [_prod(x.shape)])
        return op.reshape(op.take(self.weight, flat, axis=0), list(x.shape) + [self.dim])


def _prod(shape):
    p = 1
    for d in shape:
        p = p * d
    return p


class ReLU(Module):
    def forward(self, x):
        return op.relu(x)


class SiLU(Module):
    def forward(self, x):
        return op.silu(x)


class GELU(Module):
    def forward(self, x):
        return op.gelu(x)


class Identity(Module):
    """The input itself."""

    def forward(self, x):
        return x
