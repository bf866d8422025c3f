/* ONNX converters, family "tensor" (see onnx_import.h). */
#include "onnx_import.h"

const rlx_onnx_converter_t rlx_onnx_ops_tensor[] = {
    {NULL, 0, NULL},
};
