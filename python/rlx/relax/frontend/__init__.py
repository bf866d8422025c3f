"""rlx.relax.frontend: model importers (torch.fx) and detach_params, as in TVM."""
import weakref

# Data kept beside an IRModule object (its wrapper has no attribute slots), by id() of the
# wrapper and dropped when the wrapper dies (a handle can be reused by a later module):
# weights an importer kept as parameters ({function name: [NDArray, ...]}) and the object /
# source files of nn extern modules that relax.build links into the executable.
_PARAMS = {}
_EXTERNS = {}


def _keep(table, mod, value):
    key = id(mod)
    if key not in table:
        weakref.finalize(mod, table.pop, key, None)
    table[key] = value
    return mod


def externs_of(mod):
    """The files relax.build links into mod's executable."""
    return _EXTERNS.get(id(mod), ([], []))[0]


def attach_params(mod, params):
    return _keep(_PARAMS, mod, params)


def detach_params(mod):
    """Splits the weights kept as function parameters (from_fx(..., keep_params_as_input=True))
    off the module: returns (mod, {function name: [NDArray, ...]}), the arrays in the order of
    the parameters after the inputs."""
    return mod, dict(_PARAMS.pop(id(mod), {}) or {})
