/* The disassembler: an executable as text (format in include/rlx/vm.h; read back by
 * vm_asm.c). */
#include <stdio.h>
#include <string.h>

#include "vm_exec.h"
#include "rlx/vm.h"

/* A string in double quotes with \\, \" and \xNN escapes (what the assembler reads). */
static void print_quoted(rlx_strbuf_t* sb, const char* s) {
  rlx_strbuf_append(sb, "\"");
  for (const char* p = s; *p; p++) {
    if (*p == '"' || *p == '\\') rlx_strbuf_printf(sb, "\\%c", *p);
    else if ((unsigned char)*p < 32 || (unsigned char)*p >= 127) rlx_strbuf_printf(sb, "\\x%02x", (unsigned char)*p);
    else rlx_strbuf_appendn(sb, p, 1);
  }
  rlx_strbuf_append(sb, "\"");
}

static void print_const(rlx_strbuf_t* sb, const rlx_vm_const_t* c) {
  char b[32];
  switch (c->kind) {
    case RLX_VM_CONST_TENSOR:
      /* the shape straight into the buffer: 64 dims of 19 digits do not fit a fixed one */
      rlx_strbuf_printf(sb, "tensor %s (", rlx_dldtype_str(c->dtype, b));
      for (int d = 0; d < c->ndim; d++) rlx_strbuf_printf(sb, d ? ", %lld" : "%lld", (long long)c->shape[d]);
      rlx_strbuf_printf(sb, "%s, %zu bytes", c->ndim == 1 ? ",)" : ")", c->nbytes);
      if (c->nbytes > RLX_VM_DISASM_MAX_DATA) {
        rlx_strbuf_append(sb, " (data not shown)");
        return;
      }
      rlx_strbuf_append(sb, " 0x");
      for (size_t i = 0; i < c->nbytes; i++) rlx_strbuf_printf(sb, "%02x", ((const uint8_t*)c->data)[i]);
      return;
    case RLX_VM_CONST_INT: rlx_strbuf_printf(sb, "int %lld", (long long)c->i); return;
    case RLX_VM_CONST_FLOAT:
      if (c->f != c->f) { /* a NaN: its sign and payload, which no decimal form keeps */
        uint64_t bits;
        memcpy(&bits, &c->f, 8);
        rlx_strbuf_printf(sb, "float nan bits 0x%016llx", (unsigned long long)bits);
      } else {
        rlx_strbuf_printf(sb, "float %.17g", c->f);
      }
      return;
    case RLX_VM_CONST_STR:
      rlx_strbuf_append(sb, "str ");
      print_quoted(sb, c->s);
      return;
    case RLX_VM_CONST_DTYPE: rlx_strbuf_printf(sb, "dtype %s", rlx_dldtype_str(c->dtype, b)); return;
  }
}

static void print_arg(rlx_strbuf_t* sb, const rlx_vm_exec_t* e, const rlx_vm_arg_t* a) {
  switch (a->kind) {
    case RLX_VM_ARG_REG: rlx_strbuf_printf(sb, "%%%lld", (long long)a->value); return;
    case RLX_VM_ARG_IMM: rlx_strbuf_printf(sb, "i%lld", (long long)a->value); return;
    case RLX_VM_ARG_CONST: {
      const rlx_vm_const_t* c = &e->consts.data[a->value];
      char b[32];
      /* short constants are easier to read inline */
      if (c->kind == RLX_VM_CONST_STR && strlen(c->s) <= 24) {
        rlx_strbuf_printf(sb, "c[%lld]:", (long long)a->value);
        print_quoted(sb, c->s);
      }
      else if (c->kind == RLX_VM_CONST_DTYPE)
        rlx_strbuf_printf(sb, "c[%lld]:%s", (long long)a->value, rlx_dldtype_str(c->dtype, b));
      else rlx_strbuf_printf(sb, "c[%lld]", (long long)a->value);
      return;
    }
    case RLX_VM_ARG_FUNC: rlx_strbuf_printf(sb, "f[%s]", e->funcs.data[a->value].name); return;
  }
}

RLX_MUST_USE rlx_status_t* rlx_vm_disassemble(const void* exec_bytes, size_t n, char** out_text) {
  rlx_vm_exec_t* e = NULL;
  RLX_RETURN_IF_ERROR(rlx_vm_exec_parse(exec_bytes, n, &e));
  rlx_strbuf_t sb = {0};
  size_t tensor_bytes = 0;
  int n_tensors = 0;
  for (int i = 0; i < e->consts.len; i++)
    if (e->consts.data[i].kind == RLX_VM_CONST_TENSOR) {
      n_tensors++;
      tensor_bytes += e->consts.data[i].nbytes;
    }
  rlx_strbuf_printf(&sb, "; rlx executable, format version %u, %zu bytes\n", RLX_VM_FORMAT_VERSION, n);
  rlx_strbuf_printf(&sb, "; constants: %d (%d tensors, %zu bytes of tensor data)\n", e->consts.len, n_tensors,
                    tensor_bytes);
  for (int i = 0; i < e->consts.len; i++) {
    rlx_strbuf_printf(&sb, "c[%d] = ", i);
    print_const(&sb, &e->consts.data[i]);
    rlx_strbuf_append(&sb, "\n");
  }
  /* the function table in index order: packed functions as `packed` lines, VM functions
   * as blocks (the assembler rebuilds the same table from this) */
  for (int fi = 0; fi < e->funcs.len; fi++) {
    const rlx_vm_func_t* f = &e->funcs.data[fi];
    if (f->kind == RLX_VM_FUNC_PACKED) {
      rlx_strbuf_printf(&sb, "%spacked %s", fi == 0 || e->funcs.data[fi - 1].kind != RLX_VM_FUNC_PACKED ? "\n" : "",
                        f->name);
      if (strcmp(f->name, f->symbol) != 0) rlx_strbuf_printf(&sb, " symbol %s", f->symbol);
      rlx_strbuf_append(&sb, "\n");
      continue;
    }
    rlx_strbuf_printf(&sb, "\nfunction %s(", f->name);
    for (int p = 0; p < f->n_params; p++) {
      char b[32];
      rlx_strbuf_printf(&sb, "%s%s: ", p ? ", " : "", f->param_names[p]);
      if (f->param_ndims[p] == RLX_VM_PARAM_NOT_TENSOR) {
        rlx_strbuf_append(&sb, "object");
        continue;
      }
      rlx_strbuf_printf(&sb, "%s ndim=%d ", f->param_dtypes[p].bits ? rlx_dldtype_str(f->param_dtypes[p], b) : "?",
                        f->param_ndims[p]);
      print_quoted(&sb, f->param_shapes[p]);
    }
    rlx_strbuf_printf(&sb, ") registers=%d  ; %d params, instructions [%lld, %lld)\n", f->n_regs, f->n_params,
                      (long long)f->begin, (long long)f->end);
    for (int64_t pc = f->begin; pc < f->end; pc++) {
      const rlx_vm_instr_t* in = &e->instrs.data[pc];
      rlx_strbuf_printf(&sb, "  %4lld: ", (long long)(pc - f->begin));
      switch (in->op) {
        case RLX_VM_OP_CALL: {
          const rlx_vm_func_t* callee = &e->funcs.data[in->func];
          rlx_strbuf_printf(&sb, "%%%d = call %s(", in->dst, callee->name);
          for (int a = 0; a < in->n_args; a++) {
            if (a) rlx_strbuf_append(&sb, ", ");
            print_arg(&sb, e, &e->args.data[in->first_arg + a]);
          }
          rlx_strbuf_append(&sb, ")");
          if (callee->kind == RLX_VM_FUNC_PACKED && strcmp(callee->name, callee->symbol) != 0)
            rlx_strbuf_printf(&sb, "  ; symbol %s", callee->symbol);
          break;
        }
        case RLX_VM_OP_RET: rlx_strbuf_printf(&sb, "ret %%%d", in->dst); break;
        case RLX_VM_OP_GOTO:
          rlx_strbuf_printf(&sb, "goto %+lld  ; to %lld", (long long)in->offset,
                            (long long)(pc - f->begin + in->offset));
          break;
        case RLX_VM_OP_IF:
          rlx_strbuf_printf(&sb, "if %%%d else goto %+lld  ; to %lld", in->dst, (long long)in->offset,
                            (long long)(pc - f->begin + in->offset));
          break;
      }
      rlx_strbuf_append(&sb, "\n");
    }
  }
  rlx_vm_exec_free(e);
  *out_text = rlx_strbuf_take(&sb);
  return *out_text ? NULL : rlx_status_create(RLX_OUT_OF_MEMORY, "disassembling");
}
