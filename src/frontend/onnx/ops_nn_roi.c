/* ONNX converters, family "nn", part 4 (see ops_nn.c): RoiAlign.
 *
 * No Relax op: one emit_te of two computes, as ONNX Runtime computes it. For each ROI r,
 * channel c and output cell (ph, pw), sampling_ratio^2 points on a regular grid inside the
 * cell are bilinearly interpolated from X[batch_indices[r], c] (a point more than one pixel
 * outside the image counts as 0; coordinates below 0 clamp to 0, the last row / column
 * repeats); "avg" averages them (over all points), "max" takes the largest of the weighted
 * corner terms (ONNX Runtime's rule). coordinate_transformation_mode "half_pixel" (opset 16's
 * default) shifts the ROI by -0.5 pixel; "output_half_pixel" (opset 10's behaviour) does not
 * and makes every ROI at least 1 x 1. sampling_ratio 0 (adaptive: a count that depends on
 * the ROI's size, i.e. on data) is not supported. Batch indices are clamped into [0, N).
 */
#include <string.h>

#include "ops_nn_internal.h"

typedef struct {
  rlx_te_tensor_t *x, *rois, *bi, *acc;
  int64_t oh, ow, sr;
  double scale;
  bool half_pixel, is_max;
} roi_t;

static rlx_expr_t* fconst(rlx_ctx_t* ctx, const roi_t* r, double v) { return rlx_ir_float(ctx, r->x->buffer->dtype, v); }

/* One sampling coordinate: start + p * bin + (i + 0.5) * bin / sr, and its interpolation
 * terms: lo / hi indices (int64) and the weight of hi; *valid: inside [-1, size]. */
static void sample_axis(rlx_ctx_t* ctx, const roi_t* r, rlx_expr_t* start, rlx_expr_t* bin, rlx_expr_t* p,
                        rlx_expr_t* i, rlx_expr_t* size, rlx_expr_t** lo, rlx_expr_t** hi, rlx_expr_t** w_hi,
                        rlx_expr_t** valid) {
  rlx_dtype_t dt = r->x->buffer->dtype, it = rlx_dt_int64();
  rlx_expr_t* v = rlx_ir_add(ctx, rlx_ir_add(ctx, start, rlx_ir_mul(ctx, rlx_ir_cast(ctx, dt, p), bin)),
                             rlx_ir_div(ctx, rlx_ir_mul(ctx, rlx_ir_add(ctx, rlx_ir_cast(ctx, dt, i), fconst(ctx, r, 0.5)), bin),
                                        fconst(ctx, r, (double)r->sr)));
  rlx_expr_t* fsize = rlx_ir_cast(ctx, dt, size);
  *valid = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GE, v, fconst(ctx, r, -1.0)), rlx_ir_cmp(ctx, RLX_EXPR_LE, v, fsize));
  v = rlx_ir_max(ctx, v, fconst(ctx, r, 0.0));
  rlx_expr_t* fl = rlx_ir_cast(ctx, it, rlx_ir_call(ctx, dt, "floor", 1, &v));
  rlx_expr_t* last = rlx_ir_sub(ctx, size, rlx_ir_i64(ctx, 1));
  rlx_expr_t* at_end = rlx_ir_cmp(ctx, RLX_EXPR_GE, fl, last);
  *lo = rlx_ir_select(ctx, at_end, last, fl);
  *hi = rlx_ir_select(ctx, at_end, last, rlx_ir_add(ctx, fl, rlx_ir_i64(ctx, 1)));
  rlx_expr_t* vv = rlx_ir_select(ctx, at_end, rlx_ir_cast(ctx, dt, last), v);
  *w_hi = rlx_ir_sub(ctx, vv, rlx_ir_cast(ctx, dt, *lo));
}

static rlx_expr_t* roi_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  roi_t* r = user;
  rlx_dtype_t dt = r->x->buffer->dtype, it = rlx_dt_int64();
  rlx_expr_t* const* xs = r->x->buffer->shape;
  rlx_expr_t *ri = rlx_ir_cast(ctx, it, &idx[0]->hdr), *c = rlx_ir_cast(ctx, it, &idx[1]->hdr);
  rlx_expr_t* box[4];
  for (int k = 0; k < 4; k++) {
    rlx_expr_t* li[2] = {ri, rlx_ir_i64(ctx, k)};
    rlx_expr_t* v = rlx_ir_cast(ctx, dt, rlx_te_load(ctx, r->rois, 2, li));
    box[k] = rlx_ir_sub(ctx, rlx_ir_mul(ctx, v, fconst(ctx, r, r->scale)), fconst(ctx, r, r->half_pixel ? 0.5 : 0.0));
  }
  rlx_expr_t *rw = rlx_ir_sub(ctx, box[2], box[0]), *rh = rlx_ir_sub(ctx, box[3], box[1]);
  if (!r->half_pixel) {
    rw = rlx_ir_max(ctx, rw, fconst(ctx, r, 1.0));
    rh = rlx_ir_max(ctx, rh, fconst(ctx, r, 1.0));
  }
  rlx_expr_t* bh = rlx_ir_div(ctx, rh, fconst(ctx, r, (double)r->oh));
  rlx_expr_t* bw = rlx_ir_div(ctx, rw, fconst(ctx, r, (double)r->ow));
  rlx_iter_var_t* ax[2] = {rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), rlx_ir_i64(ctx, r->sr), "iy"),
                           rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), rlx_ir_i64(ctx, r->sr), "ix")};
  rlx_expr_t *yl, *yh, *ly, *vy, *xl, *xh, *lx, *vx;
  sample_axis(ctx, r, box[1], bh, &idx[2]->hdr, &ax[0]->var->hdr, rlx_ir_cast(ctx, it, xs[2]), &yl, &yh, &ly, &vy);
  sample_axis(ctx, r, box[0], bw, &idx[3]->hdr, &ax[1]->var->hdr, rlx_ir_cast(ctx, it, xs[3]), &xl, &xh, &lx, &vx);
  rlx_expr_t *one = fconst(ctx, r, 1.0), *hy = rlx_ir_sub(ctx, one, ly), *hx = rlx_ir_sub(ctx, one, lx);
  rlx_expr_t* n = rlx_ir_cast(ctx, it, rlx_te_load(ctx, r->bi, 1, &ri));
  n = rlx_ir_max(ctx, rlx_ir_min(ctx, n, rlx_ir_sub(ctx, rlx_ir_cast(ctx, it, xs[0]), rlx_ir_i64(ctx, 1))),
                 rlx_ir_i64(ctx, 0));
  rlx_expr_t* rows[2] = {yl, yh};
  rlx_expr_t* cols[2] = {xl, xh};
  rlx_expr_t* wr[2] = {hy, ly};
  rlx_expr_t* wc[2] = {hx, lx};
  rlx_expr_t* val = NULL;
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++) {
      rlx_expr_t* li[4] = {n, c, rows[a], cols[b]};
      rlx_expr_t* t = rlx_ir_mul(ctx, rlx_ir_mul(ctx, wr[a], wc[b]), rlx_te_load(ctx, r->x, 4, li));
      val = !val ? t : r->is_max ? rlx_ir_max(ctx, val, t) : rlx_ir_add(ctx, val, t);
    }
  val = rlx_ir_select(ctx, rlx_ir_and(ctx, vy, vx), val, fconst(ctx, r, 0.0));
  return r->is_max ? rlx_te_max(ctx, val, 2, ax) : rlx_te_sum(ctx, val, 2, ax);
}

static rlx_expr_t* roi_avg_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  roi_t* r = user;
  rlx_expr_t* li[4] = {&idx[0]->hdr, &idx[1]->hdr, &idx[2]->hdr, &idx[3]->hdr};
  return rlx_ir_div(ctx, rlx_te_load(ctx, r->acc, 4, li), fconst(ctx, r, (double)(r->sr * r->sr)));
}

static RLX_MUST_USE rlx_status_t* te_roi_align(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n_in, void* user,
                                               rlx_te_tensor_t** out) {
  roi_t* r = user;
  r->x = in[0];
  r->rois = in[1];
  r->bi = in[2];
  rlx_expr_t* shape[4] = {in[1]->buffer->shape[0], in[0]->buffer->shape[1], rlx_ir_i64(ctx, r->oh),
                          rlx_ir_i64(ctx, r->ow)};
  r->acc = rlx_te_compute(ctx, 4, shape, roi_body, r, r->is_max ? "roi_align" : "roi_align_sum", "");
  if (r->is_max) return *out = r->acc, NULL;
  return *out = rlx_te_compute(ctx, 4, shape, roi_avg_body, r, "roi_align", ""), NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_nn_roi_align(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                    rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t *x, *rois, *bi;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 1, &rois));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 2, &bi));
  if (x->ndim != 4 || !rlx_dtype_is_float(x->dtype)) return rlx_onnx_error(node, "X must be a 4-D float tensor (N, C, H, W)");
  int64_t four;
  if (rois->ndim != 2 || (rois->shape && rlx_expr_is_const_int(rois->shape[1], &four) && four != 4))
    return rlx_onnx_error(node, "rois must have shape (num_rois, 4)");
  if (rois->dtype.code != x->dtype.code || rois->dtype.bits != x->dtype.bits)
    return rlx_onnx_error(node, "rois must have X's dtype");
  if (bi->ndim != 1 || (bi->dtype.code != RLX_DT_INT && bi->dtype.code != RLX_DT_UINT))
    return rlx_onnx_error(node, "batch_indices must be a 1-D integer tensor");
  if (!x->shape || !rois->shape) return nn_unsupported(node, "X and rois must have known shapes");
  roi_t r = {0};
  r.oh = rlx_onnx_attr_int(node, "output_height", 1);
  r.ow = rlx_onnx_attr_int(node, "output_width", 1);
  r.sr = rlx_onnx_attr_int(node, "sampling_ratio", 0);
  r.scale = rlx_onnx_attr_float(node, "spatial_scale", 1.0);
  if (r.oh < 1 || r.ow < 1) return rlx_onnx_error(node, "output_height and output_width must be >= 1");
  if (r.sr < 0) return rlx_onnx_error(node, "sampling_ratio must be >= 0, got %lld", (long long)r.sr);
  if (r.sr == 0) return nn_unsupported(node, "sampling_ratio 0 (adaptive, data-dependent sample counts)");
  const char* mode = rlx_onnx_attr_string(node, "mode", "avg");
  if (strcmp(mode, "avg") != 0 && strcmp(mode, "max") != 0)
    return rlx_onnx_error(node, "mode \"%s\" is not \"avg\" or \"max\"", mode);
  r.is_max = strcmp(mode, "max") == 0;
  const char* ctm = rlx_onnx_attr_string(node, "coordinate_transformation_mode",
                                         rlx_onnx_opset(im) >= 16 ? "half_pixel" : "output_half_pixel");
  if (strcmp(ctm, "half_pixel") != 0 && strcmp(ctm, "output_half_pixel") != 0)
    return rlx_onnx_error(node, "coordinate_transformation_mode \"%s\" is not half_pixel or output_half_pixel", ctm);
  r.half_pixel = strcmp(ctm, "half_pixel") == 0;
  return rlx_status_annotate(rlx_onnx_emit_te(im, te_roi_align, &r, 3, inputs, "roi_align", &outputs[0]),
                             "node '%s' (%s)", node->name, node->op_type);
}
