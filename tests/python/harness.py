"""Tiny test harness for the Python-driven end-to-end tests: check() records results and
finish() prints 'N passed, N failed' and exits non-zero on failure."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

_passed = 0
_failed = 0


def check(cond, what):
    global _passed, _failed
    if cond:
        _passed += 1
    else:
        _failed += 1
        print("FAIL:", what, file=sys.stderr)
    return cond


def finish():
    print("%d passed, %d failed" % (_passed, _failed))
    sys.exit(1 if _failed else 0)


class Tool:
    """Runs the rlx binary with a private kernel cache."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.tmp = tempfile.mkdtemp(prefix="rlx-test-")
        # models, archives and kernel caches run to hundreds of MB per test: removed at exit
        # unless RLX_KEEP_TEST_DIRS is set (to look at a failure)
        if not os.environ.get("RLX_KEEP_TEST_DIRS"):
            atexit.register(shutil.rmtree, self.tmp, True)
        self.env = dict(os.environ, RLX_CACHE_DIR=os.path.join(self.tmp, "cache"))

    def run(self, *args, timeout=600):
        r = subprocess.run([self.path] + [str(a) for a in args], capture_output=True, text=True,
                           env=self.env, timeout=timeout)
        return r.returncode, r.stdout, r.stderr

    def file(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def ok(self, *args):
        """Runs rlx and checks it succeeded; returns (succeeded, stdout)."""
        rc, out, err = self.run(*args)
        check(rc == 0, "rlx %s failed (%d): %s" % (" ".join(map(str, args)), rc, err))
        return rc == 0, out

    def fails(self, args, needles, what):
        """Runs rlx and checks it failed with exit status 1 and one `rlx: error:` message
        holding every needle; returns stderr."""
        rc, out, err = self.run(*args)
        good = rc == 1 and err.startswith("rlx: error:") and all(n in err for n in needles)
        check(good, "%s: rc=%d stderr=%r, wanted %r" % (what, rc, err, needles))
        return err


def calibrate(model, shape):
    """Random BatchNorm affine parameters, then running statistics from one training-mode pass
    over random data, so activations stay O(1) in eval mode (at torchvision's init,
    MobileNetV2's output is ~1e-8, which would make any error look small)."""
    import torch  # only the tests that build PyTorch models need it

    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    with torch.no_grad():
        for m in bns:
            m.weight.uniform_(0.5, 1.5)
            m.bias.normal_(0.0, 0.1)
            m.reset_running_stats()
            m.momentum = None  # cumulative average
        model.train()
        model(torch.randn(4, *shape[1:]))
    model.eval()


def onnx_model(tool, name, nodes, inputs, outputs, opset=17, inits=()):
    """Saves a one-graph ONNX model (default domain at `opset`) as TMP/name.onnx; its path."""
    import onnx
    from onnx import helper
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    path = os.path.join(tool.tmp, name + ".onnx")
    onnx.save(m, path)
    return path


def run_outputs(tool, target, arrays, tag):
    """rlx run TARGET on arrays (saved as .npy); returns (outputs as arrays or None when the
    run failed, stderr)."""
    import numpy as np
    args = ["run", target]
    for k, a in enumerate(arrays):
        p = os.path.join(tool.tmp, "%s_in%d.npy" % (tag, k))
        np.save(p, a)
        args += ["-i", p]
    out = os.path.join(tool.tmp, "out_" + tag)
    rc, _, err = tool.run(*(args + ["-o", out, "--format", "npy"]))
    if rc != 0:
        return None, err
    res, k = [], 0
    while os.path.exists(os.path.join(out, "output_%d.npy" % k)):
        res.append(np.load(os.path.join(out, "output_%d.npy" % k)))
        k += 1
    return res, err
