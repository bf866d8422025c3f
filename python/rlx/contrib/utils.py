"""Temporary directories (TVM's tvm.contrib.utils.tempdir)."""
import os
import shutil
import tempfile


class TempDirectory:
    """A directory removed when the object goes (or at the end of a with block)."""

    def __init__(self, custom_path=None, keep_for_debug=False):
        if custom_path:
            os.makedirs(custom_path, exist_ok=True)
            self.temp_dir = custom_path
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="rlx-tmp-")
        self._keep = keep_for_debug or bool(custom_path)

    def remove(self):
        if self.temp_dir and not self._keep:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None

    def __del__(self):
        self.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def relpath(self, name):
        return os.path.join(self.temp_dir, name)

    def listdir(self):
        return os.listdir(self.temp_dir)

    @property
    def path(self):
        return self.temp_dir


def tempdir(custom_path=None, keep_for_debug=None):
    return TempDirectory(custom_path, bool(keep_for_debug))
