# Named tuples as kernel files configure tiles: typing.NamedTuple classes (annotated fields with
# defaults, methods), the functional NamedTuple(...) and collections.namedtuple (field names as one
# string, defaults for the rightmost fields); attribute, index, slice, unpacking, _replace, _asdict,
# _fields, _make, tuple equality; immutable; a missing field is a TypeError.
import typing
from typing import NamedTuple
from collections import namedtuple
import collections

class Cfg(NamedTuple):
    rows: int = 128
    cols: int = 512
    scale: float = 0.5
    def area(self):
        return self.rows * self.cols

P = namedtuple("P", "a b, c", defaults=(3,))
Q = collections.namedtuple("Q", ["x", "y"])
R = NamedTuple("R", [("u", int), ("v", int)])

c = Cfg()
d = c._replace(cols=1024)
r, k, s = d
p = P(1, 2)
print(c, d, r, k, s, c.area(), d[1], d[-1], d[0:2], len(d), p, p.c, Q(1, y=2), R(3, 4), Cfg._fields, c._asdict(), c == (128, 512, 0.5), Cfg._make([1, 2, 3.0]))
try:
    c.rows = 3
except AttributeError as e:
    print("AttributeError", e)
try:
    P(1)
except TypeError as e:
    print("TypeError", e)
