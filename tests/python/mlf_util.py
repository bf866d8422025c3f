"""Helpers for the Model Library Format tests: unpack an archive, write a small main.c that
feeds raw input files to the AOT entry point and writes raw output files, build it with the
README's command (cc -std=c11 CFLAGS -I codegen/host/include ... -lm, CFLAGS the metadata's
"cflags" for the archive's target) and run it."""
import glob
import hashlib
import json
import os
import shutil
import subprocess
import tarfile

import numpy as np


def unpack(tar_path, out_dir):
    with tarfile.open(tar_path) as t:
        t.extractall(out_dir)
    with open(os.path.join(out_dir, "metadata.json")) as f:
        return json.load(f)


def write_main(out_dir, meta, name="default"):
    """main.c: argv = [var values...]; reads in_<input>.bin, writes out_<output>.bin."""
    mod = meta["modules"][name]
    fn = mod["memory"]["functions"]["main"][0]
    ins, outs = list(fn["inputs"]), list(fn["outputs"])
    svars = fn.get("shape_vars", [])
    sz = "(&v)" if svars else ""
    lines = ['#include <stdio.h>', '#include <stdlib.h>', '#include "tvmgen_%s.h"' % name,
             "static void* load(const char* p) {",
             '  FILE* f = fopen(p, "rb"); if (!f) { perror(p); exit(2); }',
             "  fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);",
             "  void* d = malloc(n ? (size_t)n : 1); if (fread(d, 1, (size_t)n, f) != (size_t)n) exit(2);",
             "  fclose(f); return d;", "}",
             "int main(int argc, char** argv) {",
             "  (void)argc; (void)argv;",
             "  struct tvmgen_%s_inputs in; struct tvmgen_%s_outputs out;" % (name, name)]
    if svars:
        lines.append("  struct tvmgen_%s_shape_vars v = {%s};" % (
            name, ", ".join("atoll(argv[%d])" % (i + 1) for i in range(len(svars)))))
    for i in ins:
        lines.append('  in.%s = load("in_%s.bin");' % (i, i))
    for o in outs:
        lines.append("  out.%s = malloc(TVMGEN_%s_%s_SIZE%s + 1);" % (o, name.upper(), o.upper(), sz))
    if svars:
        lines.append("  size_t wn = tvmgen_%s_workspace_size(&v);" % name)
        lines.append("  void* ws = aligned_alloc(64, (wn + 63) / 64 * 64 + 64);")
        lines.append("  int rc = tvmgen_%s_run_dynamic(&in, &out, &v, ws);" % name)
        lines.append('  printf("workspace_bytes=%zu\\n", wn);')
    else:
        lines.append("  int rc = tvmgen_%s_run(&in, &out);" % name)
    lines.append('  if (rc != 0) { fprintf(stderr, "run failed: %d\\n", rc); return 1; }')
    for o in outs:
        lines.append('  FILE* f_%s = fopen("out_%s.bin", "wb");' % (o, o))
        lines.append("  fwrite(out.%s, 1, TVMGEN_%s_%s_SIZE%s, f_%s); fclose(f_%s);" % (o, name.upper(), o.upper(), sz, o, o))
    lines += ["  return 0;", "}"]
    with open(os.path.join(out_dir, "main.c"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(lines)


def cflags(out_dir):
    """The archive's "cflags" (metadata.json, its one module): -O3 -ffp-contract=fast -march=... of
    its target."""
    with open(os.path.join(out_dir, "metadata.json")) as f:
        modules = json.load(f)["modules"]
    return next(iter(modules.values()))["cflags"].split()


def build(out_dir, extra=(), openmp=False, obj_cache=None, main="main.c", cc=None, flags=()):
    """Builds out_dir/prog with the README's command (cc -std=c11 CFLAGS -I codegen/host/include
    sources... main.c -lm; CFLAGS from metadata.json, cc $CC or the given compiler: a cross
    compiler for a foreign target; flags: more words, e.g. -static), the archive's sources compiled to objects first (kept in
    out_dir/objs-{omp,serial} for archive_undefined); returns (ok, compiler output). With
    obj_cache (a directory), objects are cached by content and flags (-fopenmp left out of
    the key of a source without OpenMP pragmas): the runtime sources, the same in every
    archive, and the constants compile once."""
    inc = os.path.join(out_dir, "codegen/host/include")
    cc = [cc or os.environ.get("CC", "cc"), "-std=c11"] + cflags(out_dir) + list(flags) + ["-I", inc] + (
        ["-fopenmp"] if openmp else [])
    srcs = sorted(glob.glob(os.path.join(out_dir, "codegen/host/src/*.c")))
    runtime = sorted(glob.glob(os.path.join(out_dir, "runtime/src/*.c")))
    obj_dir = os.path.join(out_dir, "objs-omp" if openmp else "objs-serial")
    os.makedirs(obj_dir, exist_ok=True)
    objs = []
    for src in srcs + runtime:
        obj = os.path.join(obj_dir, os.path.basename(src) + ".o")
        cached = None
        if obj_cache:
            os.makedirs(obj_cache, exist_ok=True)
            with open(src, "rb") as f:
                text = f.read()
            # a source without OpenMP pragmas (the constants) compiles the same with -fopenmp
            key_flags = [c for c in cc[1:] if c != "-fopenmp" or b"#pragma omp" in text]
            key = hashlib.sha1(text + " ".join(key_flags).encode()).hexdigest()
            cached = os.path.join(obj_cache, key + ".o")
            if os.path.exists(cached):
                shutil.copyfile(cached, obj)
                objs.append(obj)
                continue
        r = subprocess.run(cc + ["-c", src, "-o", obj], capture_output=True, text=True)
        if r.returncode != 0:
            return False, r.stdout + r.stderr
        if cached:
            shutil.copyfile(obj, cached)
        objs.append(obj)
    libs = sorted(glob.glob(os.path.join(out_dir, "codegen/host/lib/*")))
    cmd = cc + [os.path.join(out_dir, main) if not os.path.isabs(main) else main] + objs + libs + list(extra)
    cmd += ["-lm", "-o", os.path.join(out_dir, "prog")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode == 0, r.stdout + r.stderr


def archive_undefined(out_dir, openmp=False):
    """{object name: set of undefined symbols} of the archive's objects from the last build."""
    obj_dir = os.path.join(out_dir, "objs-omp" if openmp else "objs-serial")
    out = {}
    for obj in sorted(glob.glob(os.path.join(obj_dir, "*.o"))):
        r = subprocess.run(["nm", "-u", obj], capture_output=True, text=True)
        out[os.path.basename(obj)] = {ln.split()[-1] for ln in r.stdout.splitlines() if ln.strip()}
    return out


HEAP_OR_THREADS = {"malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign", "free", "pthread_create",
                   "pthread_mutex_lock", "pthread_key_create", "dlopen", "mmap"}


def run(out_dir, meta, inputs, var_values=(), name="default", emulator=()):
    """Writes the inputs (dict name -> array), runs prog (under emulator: a command prefix such
    as qemu-aarch64), returns (rc, stderr, outputs dict)."""
    fn = meta["modules"][name]["memory"]["functions"]["main"][0]
    for k, v in inputs.items():
        np.ascontiguousarray(v).tofile(os.path.join(out_dir, "in_%s.bin" % k))
    r = subprocess.run(list(emulator) + [os.path.abspath(os.path.join(out_dir, "prog"))] + [str(x) for x in var_values],
                       cwd=out_dir, capture_output=True, text=True)
    outs = {}
    if r.returncode == 0:
        for o, info in fn["outputs"].items():
            outs[o] = np.fromfile(os.path.join(out_dir, "out_%s.bin" % o), dtype=info["dtype"])
    return r.returncode, r.stdout + r.stderr, outs
