"""The system C compiler (TVM's tvm.contrib.cc): shared libraries and static archives."""
import os
import subprocess


def _cc(cc=None):
    return (cc or os.environ.get("CC") or "cc").split()


def create_shared(output, objects, options=None, cc=None, cwd=None, ccache_env=None):
    """Links objects (or compiles sources) into the shared library output."""
    objects = [objects] if isinstance(objects, str) else list(objects)
    cmd = _cc(cc) + ["-shared", "-fPIC", "-o", output] + objects + list(options or [])
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        raise RuntimeError("Compilation error:\n%s\n%s" % (" ".join(cmd), r.stdout + r.stderr))


def create_staticlib(output, inputs, ar=None):
    """An archive of inputs (objects)."""
    inputs = [inputs] if isinstance(inputs, str) else list(inputs)
    cmd = [ar or os.environ.get("AR") or "ar", "rcs", output] + inputs
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("ar error:\n%s\n%s" % (" ".join(cmd), r.stdout + r.stderr))


create_shared.output_format = "so"
create_staticlib.output_format = "a"
