#!/usr/bin/env python3
"""Targets end to end through the tool: a model compiled for each x86-64 level runs where the
CPU (capped by RLX_MAX_ISA) has the level and matches the reference; where it does not, `rlx
run` and `rlx-run` refuse it with one error line naming the missing feature and exit 1 —
never an illegal instruction. The kernel cache keeps one object per target. A model compiled
for aarch64 is refused on x86-64 by name. --target errors are one line. rlx compile --stats
and rlx print MODEL.so show the target."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import Tool, check, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
tool = Tool(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "rlx"))
runner = os.path.join(os.path.dirname(tool.path), "rlx-run")
cnn = os.path.join(ROOT, "examples", "cnn.onnx")
x = os.path.join(ROOT, "examples", "cnn_input.npy")
ref = np.load(os.path.join(ROOT, "examples", "cnn_output.npy"))
LEVELS = ["x86-64-v2", "x86-64-v3", "x86-64-v4"]


def isa(env=None):
    r = subprocess.run([tool.path, "config", "--isa"], capture_output=True, text=True, env=env)
    return r.stdout.strip()


host = isa()
print("this CPU: %s" % host)
if host.startswith("x86-64"):
    caps = [None] + LEVELS[:LEVELS.index(host)]  # uncapped, then each lower level
    for level in LEVELS:
        so = os.path.join(tool.tmp, level + ".so")
        rc, out, err = tool.run("compile", cnn, "-o", so, "--target", "c -mcpu=" + level, "--stats")
        if not check(rc == 0, "compile for %s: %s" % (level, err)):
            continue
        check(out.startswith("target: c -keys=cpu -mcpu=%s -mtriple=x86_64-linux-gnu\n" % level),
              "compile --stats shows the target: %r" % out[:120])
        rc, out, _ = tool.run("print", so)
        check(out.startswith("; target: c -keys=cpu -mcpu=%s" % level), "print MODEL.so shows the target")
        for cap in caps:
            env = dict(tool.env, **({"RLX_MAX_ISA": cap} if cap else {}))
            cpu = isa(env)
            runs = LEVELS.index(level) <= LEVELS.index(cpu)
            outdir = os.path.join(tool.tmp, "out-%s-%s" % (level, cap))
            for cmd in ([tool.path, "run", so, "-i", x, "-o", outdir, "--format", "npy"],
                        [runner, so, "-i", x, "-o", outdir]):
                os.makedirs(outdir, exist_ok=True)
                r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                tag = "%s model on %s (%s)" % (level, cpu, os.path.basename(cmd[0]))
                if runs:
                    if check(r.returncode == 0, "%s: %s" % (tag, r.stderr)):
                        err = float(np.max(np.abs(np.load(os.path.join(outdir, "output_0.npy")) - ref)))
                        check(err < 1e-4, "%s: max abs error %.3g" % (tag, err))
                else:
                    missing = "avx512f" if level == "x86-64-v4" else "avx2"
                    lines = r.stderr.strip().splitlines()
                    check(r.returncode == 1 and len(lines) == 1 and missing in lines[0] and "lacks" in lines[0],
                          "%s: expected one error naming %s, got rc=%d %r" % (tag, missing, r.returncode, r.stderr))
                print("%s: %s" % (tag, "ran" if runs else "refused: " + r.stderr.strip()[:140]))

    # one cached object per target: the same model for two targets adds kernel objects
    cache = os.path.join(tool.tmp, "cache")
    before = set(os.listdir(cache)) if os.path.isdir(cache) else set()
    tool.ok("compile", cnn, "-o", os.path.join(tool.tmp, "again.so"), "--target", "c -mcpu=x86-64-v3")
    check(set(os.listdir(cache)) == before, "recompiling for the same target reuses the cache")
    tool.ok("compile", cnn, "-o", os.path.join(tool.tmp, "other.so"), "--target", "c -mcpu=x86-64-v3 -mattr=-fma")
    check(len(set(os.listdir(cache)) - before) >= 1, "another target gets its own cached objects")

    # another architecture
    a64 = os.path.join(tool.tmp, "a64.so")
    rc, _, err = tool.run("compile", cnn, "-o", a64, "--target", "c -mtriple=aarch64-linux-gnu")
    if rc == 0:
        tool.fails(["run", a64, "-i", x], ["is for aarch64; this machine is x86-64"], "aarch64 model on x86-64")
    else:
        check("aarch64-linux-gnu-gcc" in err, "no cross compiler: the error names it: %r" % err)

tool.fails(["compile", cnn, "-o", os.path.join(tool.tmp, "z.so"), "--target", "c -mcpu=pentium9"],
           ["--target: target: unknown -mcpu 'pentium9'"], "unknown CPU")
tool.fails(["compile", cnn, "-o", os.path.join(tool.tmp, "z.so"), "--target", "cuda"],
           ["kind 'cuda' is not supported"], "unknown kind")
rc, out, err = tool.run("config", "--target-cflags", "--target", "c -mcpu=znver3")
check(rc == 0 and out.strip() == "-O3 -ffp-contract=fast -march=x86-64-v3 -mtune=znver3", "config --target-cflags: %r" % out)
env = dict(tool.env, RLX_MAX_ISA="x86-64-v9")
r = subprocess.run([tool.path, "compile", cnn, "-o", os.path.join(tool.tmp, "z.so")], capture_output=True, text=True,
                   env=env)
check(r.returncode == 1 and "RLX_MAX_ISA must be x86-64, x86-64-v2, x86-64-v3 or x86-64-v4" in r.stderr,
      "malformed RLX_MAX_ISA: %r" % r.stderr)
finish()
