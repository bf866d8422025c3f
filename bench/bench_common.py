"""Helpers shared by the benchmarks that run rlx and ONNX Runtime in the same run
(onnx_models.py, int8_models.py): the networks, the ORT driver (the onnxruntime-node npm
package through node), medians and the alternating timing loop."""
import os
import re
import subprocess
import sys

import numpy as np
import torch
import torchvision

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# node script: times a model (median of `repeat` runs after 200 ms of warm-up), or with an
# output file runs it once on the raw float32 input file and writes the first output raw.
ORT_DRIVER = r'''
const ort = require('onnxruntime-node');
const fs = require('fs');
const [model, shapeArg, threads, repeat, opt, inFile, outFile] = process.argv.slice(2);
(async () => {
  const sess = await ort.InferenceSession.create(model, {intraOpNumThreads: +threads, interOpNumThreads: 1,
                                                        graphOptimizationLevel: opt || 'all', executionMode: 'sequential'});
  const shape = shapeArg.split('x').map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  let data;
  if (inFile) { const b = fs.readFileSync(inFile); data = new Float32Array(b.buffer, b.byteOffset, n); }
  else data = Float32Array.from({length: n}, (_, i) => Math.sin(i));
  const feeds = {}; feeds[sess.inputNames[0]] = new ort.Tensor('float32', data, shape);
  if (outFile) {
    const r = await sess.run(feeds);
    const y = r[sess.outputNames[0]].data;
    fs.writeFileSync(outFile, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
    return;
  }
  const t0 = Date.now();
  while (Date.now() - t0 < 200) await sess.run(feeds);
  const ts = [];
  for (let r = 0; r < +repeat; r++) {
    const t = process.hrtime.bigint(); await sess.run(feeds); ts.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ts.sort((a, b) => a - b);
  const m = ts.length % 2 ? ts[(ts.length - 1) / 2] : 0.5 * (ts[ts.length / 2 - 1] + ts[ts.length / 2]);
  console.log('median_ms=' + m.toFixed(4));
})();
'''

CNNS = [
    ("resnet18", lambda: torchvision.models.resnet18(weights=None), (1, 3, 224, 224)),
    ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(weights=None), (1, 3, 224, 224)),
    ("squeezenet1_1", lambda: torchvision.models.squeezenet1_1(weights=None), (1, 3, 224, 224)),
]


def export(make, shape, path):
    """PyTorch model (seeded, random weights) to ONNX opset 14 with input name x."""
    torch.manual_seed(0)
    model = make().eval()
    # not under no_grad: there the encoder takes PyTorch's fused fast path, which has no export
    torch.onnx.export(model, torch.randn(*shape), path, opset_version=14, input_names=["x"])


def median_ms(out):
    m = re.search(r"median_ms=([0-9.]+)", out)
    return float(m.group(1)) if m else None


def fmt_ms(ms):
    """Milliseconds with enough digits for microsecond-scale models."""
    return "%.4f" % ms if ms < 1 else "%.2f" % ms


class Ort:
    """ONNX Runtime through node, from the folder where onnxruntime-node was installed."""

    def __init__(self, folder, tmp):
        self.available = os.path.isdir(os.path.join(folder, "node_modules", "onnxruntime-node"))
        self.script = os.path.join(tmp, "ort_driver.js")
        with open(self.script, "w") as f:
            f.write(ORT_DRIVER)
        self.env = dict(os.environ, NODE_PATH=os.path.join(folder, "node_modules"))

    def time(self, model, shape, threads, repeat):
        o = subprocess.run(["node", self.script, model, "x".join(map(str, shape)), str(threads), str(repeat)],
                           capture_output=True, text=True, env=self.env)
        if median_ms(o.stdout) is None:
            print("ORT failed on %s: %s" % (model, o.stderr.strip()[-300:]), file=sys.stderr)
        return median_ms(o.stdout)

    def run(self, model, x, tmp, opt="all"):
        """The first output of model on x (float32), with graph optimizations opt ('all', 'disabled')."""
        fin, fout = os.path.join(tmp, "ort_in.bin"), os.path.join(tmp, "ort_out.bin")
        np.ascontiguousarray(x, dtype=np.float32).tofile(fin)
        subprocess.run(["node", self.script, model, "x".join(map(str, x.shape)), "1", "1", opt, fin, fout], check=True,
                       env=self.env)
        return np.fromfile(fout, dtype=np.float32)


def rlx_time(rlx, so, x_npy, threads, repeat, env):
    r = subprocess.run([rlx, "bench", so, "-i", x_npy, "--repeat", str(repeat), "--threads", str(threads)],
                       capture_output=True, text=True, env=env)
    return median_ms(r.stdout)


def alternate(rounds, timers):
    """Medians over `rounds` alternations of the timers (callables returning ms or None): one
    round can catch a slow spell of the shared machine. A timer that never succeeded gives None."""
    got = [[] for _ in timers]
    for _ in range(rounds):
        for t, g in zip(timers, got):
            ms = t()
            if ms is not None:
                g.append(ms)
    return [float(np.median(g)) if g else None for g in got]
