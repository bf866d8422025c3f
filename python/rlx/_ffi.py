"""The C library, loaded with ctypes: prototypes of the public API (include/rlx/*.h),
status -> exception conversion, dtypes, and compiler contexts.

Lifetimes: every compiler object (expression, tensor, function, module) lives in the
arena of an rlx_ctx_t, freed at once by rlx_ctx_free. A Python ``Context`` owns one
rlx_ctx_t; each Python wrapper of a compiler object holds a reference to its Context, so
the arena lives as long as any wrapper of any of its nodes. A node built from nodes of
several contexts lives in the first one, which then keeps the others alive (``adopt``).
Leaf objects (placeholders, vars, constants) go to the default context, which is replaced
by a fresh one after ``_ROTATE`` allocations so that a long-running program does not grow
one arena forever (the old one is freed when its last wrapper goes).
"""
import ctypes
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, byref, c_bool, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_size_t, c_uint8, c_uint16, c_uint64, c_void_p)

from . import error as _error

_HERE = os.path.dirname(os.path.abspath(__file__))


def _find_library():
    env = os.environ.get("RLX_LIBRARY_PATH")
    cands = []
    if env:
        cands.append(os.path.join(env, "librlx.so") if os.path.isdir(env) else env)
    root = os.path.dirname(os.path.dirname(_HERE))
    cands.append(os.path.join(root, "build", "lib", "librlx.so"))
    for c in cands:
        if os.path.exists(c):
            return c
    raise ImportError("rlx: librlx.so not found (looked in %s); build with cmake or set RLX_LIBRARY_PATH"
                      % ", ".join(cands))


LIB_PATH = _find_library()
# RTLD_GLOBAL: compiled models resolve RLXAPISetLastError & co. against the loaded runtime.
lib = ctypes.CDLL(LIB_PATH, mode=ctypes.RTLD_GLOBAL)


class DType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class Device(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", Device), ("ndim", c_int32), ("dtype", DType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class Value(ctypes.Union):
    _fields_ = [("v_int64", c_int64), ("v_float64", c_double), ("v_handle", c_void_p), ("v_str", c_char_p),
                ("v_type", DType), ("v_device", Device)]


class VMArg(Structure):
    """rlx_vm_input_t (include/rlx/vm.h): kind 0 tensor, 1 value, 2 tuple."""


VMArg._fields_ = [("kind", c_int), ("tensor", c_void_p), ("n_fields", c_int), ("fields", POINTER(VMArg))]

PACKED_FN = CFUNCTYPE(c_int, POINTER(Value), POINTER(c_int), c_int, POINTER(Value), POINTER(c_int), c_void_p)
FCOMPUTE = CFUNCTYPE(c_void_p, c_void_p, POINTER(c_void_p), c_void_p)
FCOMPUTE_MULTI = CFUNCTYPE(c_int, c_void_p, POINTER(c_void_p), c_void_p, c_int, POINTER(c_void_p))
# emit_te's callback (rlx_bb_te_multi_fn_t): returns a status (NULL = ok), its outputs' count
# and array through the last two parameters.
TE_MULTI_FN = CFUNCTYPE(c_void_p, c_void_p, POINTER(c_void_p), c_int, c_void_p, POINTER(c_int),
                        POINTER(POINTER(c_void_p)))

class VMFunctionInfo(Structure):
    """rlx_vm_function_info_t (include/rlx/vm.h)."""
    _fields_ = [("name", c_char_p), ("n_params", c_int), ("param_names", POINTER(c_char_p)),
                ("param_shapes", POINTER(c_char_p)), ("param_dtypes", c_void_p), ("param_ndims", POINTER(c_int32))]


class AttrValue(Structure):
    """rlx_attr_value_t (include/rlx/rlx.h): kind 0 bool, 1 int, 2 float, 3 str, 4 dtype, 5 ints, 6 expr."""
    _fields_ = [("kind", c_int), ("b", c_bool), ("i", c_int64), ("f", c_double), ("s", c_char_p), ("dtype", DType),
                ("n", c_int), ("ints", POINTER(c_int64)), ("expr", c_void_p)]


class ScriptBinding(Structure):
    """rlx_script_binding_t (include/rlx/rlx.h): a value of the scope around a script."""
    _fields_ = [("name", c_char_p), ("text", c_char_p), ("var_dtype", DType)]


H = c_void_p
ST = c_void_p  # rlx_status_t*

# name: (restype, [argtypes])
_PROTOS = {
    # status
    "rlx_status_code": (c_int, [ST]),
    "rlx_status_message": (c_char_p, [ST]),
    "rlx_status_free": (None, [ST]),
    # variadic; called only as rlx_status_create(code, "%s", message)
    "rlx_status_create": (ST, [c_int, c_char_p, c_char_p]),
    "RLXAPISetLastError": (None, [c_char_p]),
    "rlx_last_error": (c_char_p, []),
    # context
    "rlx_ctx_create": (H, []),
    "rlx_ctx_free": (None, [H]),
    "rlx_ctx_set_target": (ST, [H, H]),
    # PrimExpr
    "rlx_ir_int": (H, [H, DType, c_int64]),
    "rlx_ir_float": (H, [H, DType, c_double]),
    "rlx_ir_bool": (H, [H, c_bool]),
    "rlx_ir_string": (H, [H, c_char_p]),
    "rlx_ir_var": (H, [H, c_char_p, DType]),
    "rlx_ir_var_expr": (H, [H]),
    "rlx_ir_select": (H, [H, H, H, H]),
    "rlx_ir_cast": (H, [H, DType, H]),
    "rlx_ir_not": (H, [H, H]),
    "rlx_ir_call": (H, [H, DType, c_char_p, c_int, POINTER(H)]),
    "rlx_ir_attr_list": (H, [H, c_int, POINTER(H)]),
    "rlx_ir_attr_dict": (H, [H, c_int, POINTER(c_char_p), POINTER(H)]),
    "rlx_ir_expr_dtype": (DType, [H]),
    "rlx_ir_expr_int_value": (c_bool, [H, POINTER(c_int64)]),
    "rlx_ir_expr_as_var": (H, [H]),
    "rlx_ir_var_name": (c_char_p, [H]),
    "rlx_ir_expr_str": (c_void_p, [H]),
    # TE
    "rlx_te_placeholder": (H, [H, c_int, POINTER(H), DType, c_char_p]),
    "rlx_te_compute_named": (H, [H, c_int, POINTER(H), FCOMPUTE, c_void_p, c_char_p, c_char_p, POINTER(c_char_p)]),
    "rlx_te_compute_multi": (ST, [H, c_int, POINTER(H), FCOMPUTE_MULTI, c_void_p, c_char_p, c_char_p,
                                  POINTER(c_char_p), POINTER(c_int), POINTER(POINTER(H))]),
    "rlx_te_tensor_set_layout_free": (None, [H, H, c_int, POINTER(H)]),
    "rlx_te_load": (H, [H, H, c_int, POINTER(H)]),
    "rlx_te_reduce_axis": (H, [H, H, H, c_char_p]),
    "rlx_te_axis_expr": (H, [H]),
    "rlx_te_sum": (H, [H, H, c_int, POINTER(H)]),
    "rlx_te_max": (H, [H, H, c_int, POINTER(H)]),
    "rlx_te_min": (H, [H, H, c_int, POINTER(H)]),
    "rlx_te_reduce_by_name": (H, [H, c_char_p, H, c_int, POINTER(H), H, H]),
    "rlx_te_create_prim_func": (ST, [H, c_int, POINTER(H), c_char_p, POINTER(H)]),
    "rlx_te_tensor_ndim": (c_int, [H]),
    "rlx_te_tensor_dim": (H, [H, c_int]),
    "rlx_te_tensor_dtype": (DType, [H]),
    "rlx_te_tensor_name": (c_char_p, [H]),
    # PrimFuncs, modules, script
    "rlx_tir_func_name": (c_char_p, [H]),
    "rlx_tir_func_rename": (H, [H, H, c_char_p]),
    "rlx_tir_func_with_attr": (H, [H, H, c_char_p, H]),
    "rlx_tir_func_equal": (c_bool, [H, H]),
    "rlx_tir_func_hash": (c_uint64, [H]),
    "rlx_module_create": (H, [H]),
    "rlx_module_add_prim_func": (None, [H, H]),
    "rlx_module_get_prim_func": (H, [H, c_char_p]),
    "rlx_module_func_count": (c_int, [H]),
    "rlx_module_func_name": (c_char_p, [H, c_int]),
    "rlx_module_func_is_relax": (c_bool, [H, c_int]),
    "rlx_module_get_relax_func": (H, [H, c_char_p]),
    "rlx_module_add_relax_func": (None, [H, c_char_p, H]),
    "rlx_module_copy": (H, [H, H]),
    "rlx_module_equal": (c_bool, [H, H]),
    "rlx_module_hash": (c_uint64, [H]),
    "rlx_module_well_formed": (ST, [H, H]),
    "rlx_relax_func_equal": (c_bool, [H, H]),
    "rlx_relax_func_ret_sinfo": (H, [H]),
    "rlx_relax_func_hash": (c_uint64, [H]),
    "rlx_script_parse": (ST, [H, c_char_p, c_char_p, POINTER(H)]),
    "rlx_script_parse_scope": (ST, [H, c_char_p, c_char_p, c_int, POINTER(ScriptBinding), POINTER(H)]),
    "rlx_script_print_module": (c_void_p, [H]),
    "rlx_script_print_module_ex": (c_void_p, [H, c_bool]),
    "rlx_script_print_tir_func": (c_void_p, [H]),
    "rlx_script_print_relax_func": (c_void_p, [H, H, c_char_p]),
    # schedules
    "rlx_schedule_create": (H, [H, H]),
    "rlx_schedule_func": (H, [H]),
    "rlx_sched_get_loops": (ST, [H, c_char_p, POINTER(POINTER(H)), POINTER(c_int)]),
    "rlx_sched_split": (ST, [H, H, c_int, POINTER(c_int64), POINTER(H)]),
    "rlx_sched_fuse": (ST, [H, c_int, POINTER(H), POINTER(H)]),
    "rlx_sched_reorder": (ST, [H, c_int, POINTER(H)]),
    "rlx_sched_parallel": (ST, [H, H]),
    "rlx_sched_vectorize": (ST, [H, H]),
    "rlx_sched_unroll": (ST, [H, H]),
    "rlx_sched_compute_inline": (ST, [H, c_char_p]),
    "rlx_sched_reverse_compute_inline": (ST, [H, c_char_p]),
    "rlx_sched_compute_at": (ST, [H, c_char_p, H]),
    "rlx_sched_reverse_compute_at": (ST, [H, c_char_p, H]),
    "rlx_sched_cache_write": (ST, [H, c_char_p, c_int, c_char_p, POINTER(c_char_p)]),
    "rlx_sched_cache_read": (ST, [H, c_char_p, c_int, c_char_p, POINTER(c_char_p)]),
    "rlx_sched_decompose_reduction": (ST, [H, c_char_p, H, POINTER(c_char_p)]),
    # building
    "rlx_build": (ST, [H, H, POINTER(H)]),
    "rlx_codegen_symbol": (c_char_p, [H, c_char_p]),
    "rlx_relax_build": (ST, [H, H, H, c_char_p]),
    # struct info
    "rlx_sinfo_object": (H, [H]),
    "rlx_sinfo_prim": (H, [H, DType, H]),
    "rlx_sinfo_shape": (H, [H, c_int, POINTER(H)]),
    "rlx_sinfo_tensor": (H, [H, c_int, POINTER(H), DType]),
    "rlx_sinfo_tuple": (H, [H, c_int, POINTER(H)]),
    "rlx_sinfo_kind_code": (c_int, [H]),
    "rlx_sinfo_ndim": (c_int, [H]),
    "rlx_sinfo_dim": (H, [H, c_int]),
    "rlx_sinfo_dtype": (DType, [H]),
    "rlx_sinfo_n_fields": (c_int, [H]),
    "rlx_sinfo_field": (H, [H, c_int]),
    "rlx_sinfo_str": (c_char_p, [H, H]),
    # Relax expressions
    "rlx_relax_var": (H, [H, c_char_p, H]),
    "rlx_relax_dataflow_var": (H, [H, c_char_p, H]),
    "rlx_relax_constant": (H, [H, DType, c_int, POINTER(c_int64), c_void_p, c_size_t]),
    "rlx_relax_tuple": (H, [H, c_int, POINTER(H)]),
    "rlx_relax_tuple_get_item": (H, [H, H, c_int]),
    "rlx_relax_shape_expr": (H, [H, c_int, POINTER(H)]),
    "rlx_relax_prim_value": (H, [H, H]),
    "rlx_relax_string_imm": (H, [H, c_char_p]),
    "rlx_relax_global_var": (H, [H, c_char_p, H]),
    "rlx_relax_extern_func": (H, [H, c_char_p]),
    "rlx_relax_call_tir": (H, [H, H, c_int, POINTER(H), H, H]),
    "rlx_relax_call_dps_packed": (H, [H, c_char_p, c_int, POINTER(H), H]),
    "rlx_relax_call_packed": (H, [H, c_char_p, c_int, POINTER(H), c_int, POINTER(H)]),
    "rlx_relax_expr_sinfo": (H, [H]),
    # reading Relax nodes (TVM's fields)
    "rlx_relax_expr_field_count": (c_int, [H, c_char_p]),
    "rlx_relax_expr_field": (H, [H, c_char_p, c_int]),
    "rlx_relax_expr_index": (c_int, [H]),
    "rlx_relax_expr_name": (c_char_p, [H]),
    "rlx_relax_expr_prim_count": (c_int, [H]),
    "rlx_relax_expr_prim": (H, [H, c_int]),
    "rlx_relax_expr_dtype_value": (DType, [H]),
    "rlx_relax_constant_data": (c_void_p, [H, POINTER(DType), POINTER(c_int), POINTER(POINTER(c_int64)),
                                           POINTER(c_size_t)]),
    "rlx_relax_func_is_pure": (c_bool, [H]),
    "rlx_relax_call_sinfo_arg_count": (c_int, [H]),
    "rlx_relax_call_sinfo_arg": (H, [H, c_int]),
    "rlx_relax_expr_attr_count": (c_int, [H]),
    "rlx_relax_expr_attr": (c_char_p, [H, c_int, POINTER(AttrValue)]),
    "rlx_relax_seq_block_count": (c_int, [H]),
    "rlx_relax_seq_block": (H, [H, c_int]),
    "rlx_relax_block_is_dataflow": (c_bool, [H]),
    "rlx_relax_block_binding_count": (c_int, [H]),
    "rlx_relax_block_binding": (H, [H, c_int]),
    "rlx_relax_binding_is_match_cast": (c_bool, [H]),
    "rlx_relax_binding_var": (H, [H]),
    "rlx_relax_binding_value": (H, [H]),
    "rlx_relax_binding_sinfo": (H, [H]),
    "rlx_sinfo_prim_value": (H, [H]),
    "rlx_sinfo_func_param_count": (c_int, [H]),
    "rlx_sinfo_func_param": (H, [H, c_int]),
    "rlx_sinfo_func_ret": (H, [H]),
    "rlx_sinfo_func_is_pure": (c_bool, [H]),
    "rlx_relax_var_binding": (H, [H, H, H]),
    "rlx_relax_match_cast": (H, [H, H, H, H]),
    "rlx_relax_block": (H, [H, c_bool, c_int, POINTER(H)]),
    "rlx_relax_seq": (H, [H, c_int, POINTER(H), H]),
    "rlx_relax_if": (H, [H, H, H, H]),
    "rlx_relax_expr_equal": (c_bool, [H, H]),
    "rlx_relax_call_pure_packed": (H, [H, c_char_p, c_int, POINTER(H), c_int, POINTER(H)]),
    "rlx_relax_call_create": (H, [H, H, c_int, POINTER(H), H, c_int, POINTER(H)]),
    "rlx_relax_op_get": (H, [H, c_char_p]),
    "rlx_relax_bind_params": (ST, [H, H, c_char_p, c_int, POINTER(c_char_p), POINTER(H), POINTER(H)]),
    "rlx_relax_expr_hash": (c_uint64, [H]),
    "rlx_sinfo_struct_equal": (c_bool, [H, H]),
    "rlx_relax_expr_kind_str": (c_char_p, [H]),
    "rlx_relax_var_expr": (H, [H]),
    "rlx_relax_expr_as_var": (H, [H]),
    "rlx_relax_var_name": (c_char_p, [H]),
    "rlx_relax_global_var_name": (c_char_p, [H]),
    "rlx_relax_function_create": (ST, [H, c_int, POINTER(H), H, H, c_bool, c_char_p, POINTER(H)]),
    "rlx_attr_list_create": (H, [H]),
    "rlx_attr_list_set_bool": (None, [H, c_char_p, c_bool]),
    "rlx_attr_list_set_int": (None, [H, c_char_p, c_int64]),
    "rlx_attr_list_set_float": (None, [H, c_char_p, c_double]),
    "rlx_attr_list_set_str": (None, [H, c_char_p, c_char_p]),
    "rlx_attr_list_set_dtype": (None, [H, c_char_p, DType]),
    "rlx_attr_list_set_ints": (None, [H, c_char_p, c_int, POINTER(c_int64)]),
    "rlx_attr_list_set_expr": (None, [H, c_char_p, H]),
    "rlx_relax_op_count": (c_int, []),
    "rlx_relax_op_name": (c_char_p, [c_int]),
    "rlx_relax_op_params": (c_char_p, [c_int]),
    "rlx_relax_op_call_by_name": (ST, [H, c_char_p, c_int, POINTER(H), H, c_int, POINTER(H), POINTER(H)]),
    # BlockBuilder
    "rlx_bb_create": (H, [H, H]),
    "rlx_bb_function_begin": (ST, [H, c_char_p, c_int, POINTER(H)]),
    "rlx_bb_function_set_pure": (ST, [H, c_bool]),
    "rlx_bb_function_set_private": (ST, [H, c_bool]),
    "rlx_bb_function_set_attrs": (ST, [H, H]),
    "rlx_bb_dataflow_begin": (ST, [H]),
    "rlx_bb_dataflow_end": (ST, [H]),
    "rlx_bb_emit": (ST, [H, H, c_char_p, POINTER(H)]),
    "rlx_bb_emit_output": (ST, [H, H, c_char_p, POINTER(H)]),
    "rlx_bb_match_cast": (ST, [H, H, H, c_char_p, POINTER(H)]),
    "rlx_bb_emit_binding": (ST, [H, H]),
    "rlx_bb_emit_func_output": (ST, [H, H, c_int, POINTER(H)]),
    "rlx_bb_function_end": (ST, [H, POINTER(H)]),
    "rlx_bb_function_abandon": (None, [H]),
    "rlx_bb_get": (H, [H]),
    "rlx_bb_normalize": (ST, [H, H]),
    "rlx_bb_add_prim_func": (ST, [H, H, c_char_p, POINTER(H)]),
    "rlx_bb_add_relax_func": (ST, [H, H, c_char_p, POINTER(H)]),
    "rlx_bb_update_prim_func": (ST, [H, c_char_p, H]),
    "rlx_bb_update_relax_func": (ST, [H, c_char_p, H]),
    "rlx_bb_emit_te_multi": (ST, [H, TE_MULTI_FN, c_void_p, c_int, POINTER(H), c_char_p, c_char_p, POINTER(H)]),
    "rlx_bb_call_te_multi": (ST, [H, TE_MULTI_FN, c_void_p, c_int, POINTER(H), c_char_p, POINTER(H)]),
    # topi
    "rlx_topi_count": (c_int, []),
    "rlx_topi_name": (c_char_p, [c_int]),
    "rlx_topi_params": (c_char_p, [c_int]),
    "rlx_topi_call": (ST, [H, c_char_p, c_int, POINTER(H), H, POINTER(H)]),
    "rlx_topi_returns_list": (c_bool, [c_int]),
    "rlx_topi_call_multi": (ST, [H, c_char_p, c_int, POINTER(H), H, POINTER(c_int), POINTER(POINTER(H))]),
    # passes
    "rlx_transform_pass_count": (c_int, []),
    "rlx_transform_pass_name": (c_char_p, [c_int]),
    "rlx_transform_run": (ST, [H, c_char_p, H, POINTER(H)]),
    # runtime: ndarrays, registry, libraries, VM
    "rlx_ndarray_create": (ST, [c_int, POINTER(c_int64), DType, c_void_p, POINTER(H)]),
    "rlx_ndarray_from_data": (ST, [c_void_p, c_int, POINTER(c_int64), DType, POINTER(H)]),
    "rlx_ndarray_retain": (H, [H]),
    "rlx_ndarray_release": (None, [H]),
    "rlx_ndarray_copy_from": (ST, [H, H]),
    "rlx_dldtype_str": (c_char_p, [DType, c_char_p]),
    "rlx_dldtype_parse": (ST, [c_char_p, POINTER(DType)]),
    "rlx_registry_register": (ST, [c_char_p, PACKED_FN, c_void_p, c_bool]),
    "rlx_registry_get": (ST, [c_char_p, POINTER(c_void_p), POINTER(c_void_p)]),
    "rlx_registry_remove": (ST, [c_char_p]),
    "rlx_packed_call": (ST, [c_void_p, c_void_p, POINTER(Value), POINTER(c_int), c_int, POINTER(Value), POINTER(c_int)]),
    "rlx_library_load": (ST, [c_char_p, POINTER(H)]),
    "rlx_library_get_function": (ST, [H, c_char_p, POINTER(c_void_p)]),
    "rlx_library_free": (None, [H]),
    "rlx_library_has_symbol": (c_bool, [H, c_char_p]),
    "rlx_library_path": (c_char_p, [H]),
    "rlx_vm_load": (ST, [c_char_p, c_int, POINTER(c_char_p), POINTER(H)]),
    "rlx_vm_function_info": (ST, [H, c_char_p, POINTER(VMFunctionInfo)]),
    "rlx_vm_free": (None, [H]),
    "rlx_vm_function_count": (c_int, [H]),
    "rlx_vm_function_name": (c_char_p, [H, c_int]),
    "rlx_vm_invoke": (ST, [H, c_char_p, c_int, POINTER(H), POINTER(c_int), POINTER(POINTER(H))]),
    "rlx_vm_invoke_args": (ST, [H, c_char_p, c_int, POINTER(VMArg), POINTER(c_int), POINTER(POINTER(H))]),
}

for _name, (_res, _args) in _PROTOS.items():
    try:
        _f = getattr(lib, _name)
    except AttributeError:
        raise ImportError("rlx: %s has no %s; it is older than this python/rlx (rebuild it, or point "
                          "RLX_LIBRARY_PATH at a current build)" % (LIB_PATH, _name)) from None
    _f.restype = _res
    _f.argtypes = _args

_libc = ctypes.CDLL(None)
_libc.free.argtypes = [c_void_p]
_libc.free.restype = None


def free(p):
    _libc.free(p)


def take_string(p):
    """A heap char* from the library as str (freed)."""
    if not p:
        return None
    s = ctypes.string_at(p).decode()
    free(p)
    return s


def check(st):
    """Raises the status as an exception (RLXError subclass by code); frees it."""
    if not st:
        return
    code = lib.rlx_status_code(st)
    msg = lib.rlx_status_message(st).decode(errors="replace")
    lib.rlx_status_free(st)
    raise _error.from_code(code, msg)


def cstr(s):
    return None if s is None else str(s).encode()


def harray(items, ctype=c_void_p):
    items = list(items)
    return (ctype * max(len(items), 1))(*items), len(items)


# ---------------------------------------------------------------- dtypes
_DT_ALIASES = {"float": "float32", "int": "int32", "uint": "uint32", "bool": "bool"}


def dtype_of(s):
    if isinstance(s, DType):
        return s
    s = str(s)
    out = DType()
    check(lib.rlx_dldtype_parse(s.encode(), byref(out)))
    return out


def dtype_str(t):
    if t.bits == 0:
        return ""
    buf = ctypes.create_string_buffer(32)
    return lib.rlx_dldtype_str(t, buf).decode()


def is_float(t):
    return t.code in (2, 4)


# ---------------------------------------------------------------- contexts
class Context:
    """Owns one rlx_ctx_t (and the contexts its nodes point into)."""
    __slots__ = ("ptr", "keep", "__weakref__")

    def __init__(self):
        self.ptr = lib.rlx_ctx_create()
        self.keep = set()

    def adopt(self, other):
        if other is not None and other is not self:
            self.keep.add(other)

    def __del__(self):
        if self.ptr and lib is not None:
            lib.rlx_ctx_free(self.ptr)
            self.ptr = None


_ROTATE = 20000
_default = [None, 0]


def default_ctx():
    if _default[0] is None or _default[1] >= _ROTATE:
        _default[0] = Context()
        _default[1] = 0
    _default[1] += 1
    return _default[0]


def ctx_for(*objs):
    """The context a node built from objs lives in (the first object's, adopting the rest)."""
    ctxs = []
    for o in objs:
        c = getattr(o, "_ctx", None)
        if c is not None and c not in ctxs:
            ctxs.append(c)
    if not ctxs:
        return default_ctx()
    for c in ctxs[1:]:
        ctxs[0].adopt(c)
    return ctxs[0]


def submodule(root, path):
    """The module root.p0.p1... (created and registered in sys.modules when missing); the
    generated namespaces relax.op.nn, topi.nn, ... come from here."""
    import sys
    import types
    mod = sys.modules[root]
    for part in path:
        sub = getattr(mod, part, None)
        if not isinstance(sub, types.ModuleType):
            sub = types.ModuleType(mod.__name__ + "." + part)
            setattr(mod, part, sub)
            sys.modules[sub.__name__] = sub
        mod = sub
    return mod
