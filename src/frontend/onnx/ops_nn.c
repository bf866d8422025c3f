/* ONNX converters, family "nn" (see onnx_import.h). */
#include "onnx_import.h"

const rlx_onnx_converter_t rlx_onnx_ops_nn[] = {
    {NULL, 0, NULL},
};
