/* The attribute lists of the binding API (rlx_attr_list_t of include/rlx/rlx.h): a Relax
 * attrs value behind a handle, shared by api_bind.c (op calls, functions) and api_topi.c
 * (topi arguments). */
#ifndef RLX_API_ATTR_LIST_H
#define RLX_API_ATTR_LIST_H

#include "../relax/relax.h"

struct rlx_attr_list {
  rlx_ctx_t* ctx;
  rlx_attrs_t attrs;
};

#endif
