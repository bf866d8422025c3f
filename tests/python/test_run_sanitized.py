"""run_sanitized.ours: which LSan leak reports count as librlx's (the sanitizer run fails on
those only). Reports in LSan's format, as the sanitizer build prints them."""
import os

from run_sanitized import ROOT, ours

LIB = "/build-asan/lib"
SRC = os.path.join(ROOT, "src")
MALLOC = "    #0 0x7f00 in __interceptor_malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:69\n"


def test_an_allocation_by_librlx_is_ours():
    rep = ("Direct leak of 16 byte(s) in 1 object(s) allocated from:\n" + MALLOC +
           "    #1 0x7f01 in rlx_ctx_alloc %s/ir/ctx.c:40\n" % SRC +
           "    #2 0x50046f  (/usr/bin/python3.11+0x50046f)\n")
    assert ours(rep, LIB)
    rep = ("Direct leak of 16 byte(s) in 1 object(s) allocated from:\n" + MALLOC +
           "    #1 0x7f02 in strdup (/lib/x86_64-linux-gnu/libc.so.6+0x8a)\n"
           "    #2 0x7f03 in rlx_x (%s/librlx.so+0x10)\n" % LIB)
    assert ours(rep, LIB)


def test_a_python_allocation_inside_an_rlx_callback_is_not():
    rep = ("Direct leak of 1104 byte(s) in 1 object(s) allocated from:\n" + MALLOC +
           "    #1 0x50046f  (/usr/bin/python3.11+0x50046f)\n"
           "    #2 0x7f04  (/usr/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so+0xc78d)\n"
           "    #3 0x7f05  (/lib/x86_64-linux-gnu/libffi.so.8+0x6d94)\n"
           "    #4 0x7f06 in call_te_impl %s/relax/block_builder.c:622\n" % SRC)
    assert not ours(rep, LIB)
