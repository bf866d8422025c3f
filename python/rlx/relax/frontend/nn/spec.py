"""rlx.relax.frontend.nn.spec: the signatures export_tvm compiles methods for (TVM's names)."""


class Tensor:
    """A tensor argument: shape entries are ints or strings (symbolic dims, shared by name)."""

    def __init__(self, shape, dtype):
        self.shape = list(shape)
        self.dtype = dtype

    def __repr__(self):
        return "spec.Tensor(%s, %r)" % (self.shape, self.dtype)


class Int:
    """An int64 scalar argument."""

    def __repr__(self):
        return "spec.Int"


class ExternFunctionSpec:
    """The signature of an extern symbol: args (spec.Tensor / spec.Int) and ret (a spec.Tensor,
    or a list of them: the call returns a tuple). A dim or dtype given as a string is bound on
    first use and must agree everywhere else."""

    def __init__(self, args, ret, symbol=None):
        self.args = list(args)
        self.ret = ret
        self.symbol = symbol
