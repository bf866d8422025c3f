#!/usr/bin/env python3
"""ONNX TfIdfVectorizer (issue 11), run as a user runs it (`rlx run model.onnx -i x.pb -o OUT`),
against a direct numpy/Python reading of the operator's definition (below, `reference`):

- string tokens (pool_strings): 2-d input, TF over 1- and 2-grams with skips; 1-d input, TFIDF
  and IDF with weights over 2- and 3-grams only (the pool's 1-grams not counted); tokens outside
  the pool; one model run on rows of two lengths (a symbolic C);
- integer tokens beyond the suite's TF cases: int32 2-d IDF without weights, int64 1-d TFIDF
  with weights and permuted ngram_indexes;
- errors at import: pool_strings on integer tokens, both pools given.
Counts are exact; weighted outputs are float32 products, compared with rtol 1e-6.

    test_onnx_text.py RLX"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish, onnx_model  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
F, S, I32, I64 = TensorProto.FLOAT, TensorProto.STRING, TensorProto.INT32, TensorProto.INT64
vi = helper.make_tensor_value_info


def reference(x, mode, lo, hi, skip, pool, counts, indexes, weights=None):
    """TfIdfVectorizer as its definition reads: the pool holds the 1-grams from counts[0], the
    2-grams from counts[1], ...; n-gram k of the pool goes to output column indexes[k]. Each
    row counts every n-gram of length lo..hi found at a start i with s skips between its
    tokens (s = 0..skip; a 1-gram once); IDF gives weight (default 1) where the count is
    positive, TFIDF count * weight."""
    grams = []
    for n in range(1, len(counts) + 1):
        start, end = counts[n - 1], counts[n] if n < len(counts) else len(pool)
        grams += [tuple(pool[p:p + n]) for p in range(start, end, n)]
    where = {g: k for k, g in enumerate(grams)}
    w = np.ones(len(grams), np.float32) if weights is None else np.asarray(weights, np.float32)
    rows = x.reshape(-1, x.shape[-1])
    y = np.zeros((rows.shape[0], max(indexes) + 1), np.float32)
    for r, row in enumerate(rows):
        cnt = np.zeros(len(grams), np.float32)
        for n in range(lo, hi + 1):
            for s in range(skip + 1 if n > 1 else 1):
                for i in range(len(row)):
                    pos = [i + j * (s + 1) for j in range(n)]
                    if pos[-1] < len(row) and tuple(row[p] for p in pos) in where:
                        cnt[where[tuple(row[p] for p in pos)]] += 1
        for k in range(len(grams)):
            v = cnt[k] if mode == "TF" else (w[k] if cnt[k] > 0 else 0) if mode == "IDF" else cnt[k] * w[k]
            y[r, indexes[k]] = v
    return y.reshape(x.shape[:-1] + (y.shape[1],))


def save(tag, value):
    p = os.path.join(tool.tmp, tag + "_in.pb")
    with open(p, "wb") as f:
        f.write(numpy_helper.from_array(value).SerializeToString())
    return p


def run(path, x, tag):
    out = os.path.join(tool.tmp, "out_" + tag)
    rc, _, err = tool.run("run", path, "-i", save(tag, x), "-o", out)
    check(rc == 0, "%s: rlx run failed: %s" % (tag, err))
    if rc != 0:
        return None
    from onnx import TensorProto as TP
    t = TP()
    with open(os.path.join(out, "output_0.pb"), "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def case(tag, x, x_shape, elem, attrs, tol=0.0):
    pool_key = "pool_strings" if elem == S else "pool_int64s"
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)
    path = onnx_model(tool, tag, [node], [vi("x", elem, x_shape)], [vi("y", F, None)], 11)
    xs = x if isinstance(x, list) else [x]
    for k, xv in enumerate(xs):
        want = reference(xv, attrs["mode"], attrs["min_gram_length"], attrs["max_gram_length"], attrs["max_skip_count"],
                         list(attrs[pool_key]), attrs["ngram_counts"], attrs["ngram_indexes"], attrs.get("weights"))
        got = run(path, xv, "%s_%d" % (tag, k))
        if got is None:
            continue
        good = got.dtype == np.float32 and got.shape == want.shape and np.allclose(got, want, rtol=tol, atol=0)
        err = float(np.max(np.abs(got - want))) if got.shape == want.shape else float("nan")
        check(good, "%s (input %d): max abs error %g\ngot %r\nexpected %r" % (tag, k, err, got, want))
        check(want.any(), "%s (input %d): the reference is all zeros, the case tests nothing" % (tag, k))


words = np.array([["the", "cat", "sat", "on", "the", "mat"],
                  ["a", "cat", "on", "a", "mat", "cat"]], dtype=object)
# 1-grams the, cat, mat, dog; 2-grams (the cat), (cat on), (on the), (a mat)
spool = ["the", "cat", "mat", "dog", "the", "cat", "cat", "on", "on", "the", "a", "mat"]
case("str_tf_2d", words, [2, 6], S,
     dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=2, pool_strings=spool,
          ngram_counts=[0, 4], ngram_indexes=list(range(8))))
sentence = np.array(["x", "a", "b", "c", "a", "b", "zz", "c"], dtype=object)
shorter = np.array(["a", "b", "c", "b"], dtype=object)
# 1-grams a, b (not counted: min 2); 2-grams (a b), (b c), (a c); 3-grams (a b c), (b c a)
tpool = ["a", "b", "a", "b", "b", "c", "a", "c", "a", "b", "c", "b", "c", "a"]
for mode in ("TFIDF", "IDF"):
    case("str_%s_1d" % mode.lower(), [sentence, shorter], ["C"], S,
         dict(mode=mode, min_gram_length=2, max_gram_length=3, max_skip_count=1, pool_strings=tpool,
              ngram_counts=[0, 2, 8], ngram_indexes=[6, 5, 4, 3, 2, 1, 0], weights=[9, 8, 0.5, 2, 3, 0.25, 4]),
         tol=1e-6)
ints = np.array([[1, 2, 3, 2, 3, 4], [4, 4, 2, 3, 1, 1]], np.int32)
case("int32_idf_2d", ints, [2, 6], I32,
     dict(mode="IDF", min_gram_length=1, max_gram_length=2, max_skip_count=1, pool_int64s=[1, 4, 2, 3, 3, 4, 4, 1],
          ngram_counts=[0, 2], ngram_indexes=[0, 1, 2, 3, 4]))
case("int64_tfidf_1d", ints[0].astype(np.int64), [6], I64,
     dict(mode="TFIDF", min_gram_length=1, max_gram_length=2, max_skip_count=0, pool_int64s=[2, 3, 2, 3, 3, 4],
          ngram_counts=[0, 2], ngram_indexes=[3, 0, 1, 2], weights=[0.5, 2.0, 3.0, 1.5]), tol=1e-6)

# errors: one clear import message each
bad = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="TF", min_gram_length=1, max_gram_length=1,
                       max_skip_count=0, pool_strings=["a"], ngram_counts=[0], ngram_indexes=[0])
path = onnx_model(tool, "bad_pool", [bad], [vi("x", I64, [3])], [vi("y", F, None)], 11)
tool.fails(["compile", path, "-o", os.path.join(tool.tmp, "bad.so")], ["TfIdfVectorizer", "pool_strings needs string tokens"],
           "pool_strings on integer tokens")
both = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="TF", min_gram_length=1, max_gram_length=1,
                        max_skip_count=0, pool_strings=["a"], pool_int64s=[1], ngram_counts=[0], ngram_indexes=[0])
path = onnx_model(tool, "both_pools", [both], [vi("x", S, [3])], [vi("y", F, None)], 11)
tool.fails(["compile", path, "-o", os.path.join(tool.tmp, "both.so")], ["needs exactly one of pool_strings and pool_int64s"],
           "both pools")

finish()
