"""Exceptions carrying the C library's status messages (one class per status code)."""


class RLXError(RuntimeError):
    """Any error reported by the rlx C library (TVM's TVMError)."""


TVMError = RLXError


class InvalidArgumentError(RLXError, ValueError):
    pass


class DiagnosticError(RLXError, ValueError):
    """A parse error; the message starts with file:line:col."""


class NotFoundError(RLXError, ValueError):
    pass


class UnsupportedError(RLXError, NotImplementedError):
    pass


class IOError_(RLXError, OSError):
    pass


class InternalError(RLXError):
    pass


class TypeMismatchError(InvalidArgumentError, TypeError):
    """A value of another kind than expected (a tuple for a tensor): TVM's TypeError."""


class OutOfMemoryError(RLXError, MemoryError):
    pass


_BY_CODE = {1: InvalidArgumentError, 2: DiagnosticError, 3: NotFoundError, 4: UnsupportedError, 5: IOError_,
            6: OutOfMemoryError, 7: InternalError, 8: TypeMismatchError}


def from_code(code, msg):
    cls = _BY_CODE.get(code, RLXError)
    return cls(msg)
