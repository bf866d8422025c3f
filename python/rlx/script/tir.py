"""``T``: @T.prim_func (everything else is an inert placeholder in Python)."""
from .parser import _Member, inert, is_method, parse_object


def prim_func(func=None, private=False, check_well_formed=True):
    def deco(f):
        if is_method(f):
            return _Member(f)
        mod = parse_object(f)
        return mod[mod._names()[0]]

    if func is None:
        return deco
    return deco(func)


def __getattr__(name):
    return inert("T." + name)
