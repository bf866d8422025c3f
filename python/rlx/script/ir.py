"""``I``: @I.ir_module (everything else is an inert placeholder in Python)."""
from .parser import inert, parse_object


def ir_module(cls=None, check_well_formed=True):
    def deco(c):
        return parse_object(c)

    if cls is None:
        return deco
    return deco(cls)


def __getattr__(name):
    return inert("I." + name)
