"""rlx.relax.frontend: model importers (torch.fx) and detach_params, as in TVM."""

# weights kept as function parameters by an importer, by module handle (IRModule objects
# have no attribute slots): {handle: {function name: [NDArray, ...]}}
_PARAMS = {}


def attach_params(mod, params):
    _PARAMS[mod._h] = params
    return mod


def detach_params(mod):
    """Splits the weights kept as function parameters (from_fx(..., keep_params_as_input=True))
    off the module: returns (mod, {function name: [NDArray, ...]}), the arrays in the order of
    the parameters after the inputs."""
    return mod, dict(_PARAMS.pop(mod._h, {}))
