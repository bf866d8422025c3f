"""``R``: @R.function (everything else is an inert placeholder in Python)."""
from .parser import _Member, inert, is_method, parse_object


def function(f=None, pure=True, private=False, check_well_formed=True):
    def deco(fn):
        if is_method(fn):
            return _Member(fn)
        mod = parse_object(fn)
        return mod[mod._names()[-1]]

    if f is None:
        return deco
    return deco(f)


def __getattr__(name):
    return inert("R." + name)
