# Statements beyond the basic subset, as kernel files use them; the .out is what CPython prints.
from typing import Optional

COUNT = 0


def bump():
    global COUNT
    COUNT += 1
    return COUNT


def counter():
    n = 0

    def inc(by=1):
        nonlocal n
        n += by
        return n
    return inc


inc = counter()
print(inc(), inc(5), bump(), bump(), COUNT)

# walrus
data = [3, 0, 7, 2]
print([y for x in data if (y := x * 2) > 2], y)
if (n := len(data)) > 3:
    print("n", n)
k = 0
while (k := k + 1) < 4:
    pass
print("k", k, max((m := 5), 2), m)
print([(j := i) for i in range(3)], j)

# for/while else
for i in range(3):
    if i == 5:
        break
else:
    print("no break")
for i in range(3):
    if i == 1:
        break
else:
    print("not printed")
w = 0
while w < 2:
    w += 1
else:
    print("while else", w)

# annotations
size: int = 4
scale: float
print(size)


# classes
class Spec:
    """A tile spec."""
    partitions = 128

    def __init__(self, index, width=64):
        self.index = index
        self.width = width

    def cols(self):
        return slice(self.index * self.width, (self.index + 1) * self.width)

    def __repr__(self):
        return f"Spec({self.index}, {self.width})"

    def __eq__(self, other):
        return isinstance(other, Spec) and other.index == self.index


class Wide(Spec):
    def __init__(self, index):
        Spec.__init__(self, index, width=128)

    def area(self):
        return self.partitions * self.width


s = Spec(2)
wd = Wide(1)
print(s, s.cols(), wd, wd.area(), isinstance(wd, Spec), isinstance(s, Wide), s == Spec(2), s == wd)
s.width += 1
print(s.width, Spec.partitions)


class Ctx:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print("enter", self.name)
        return self

    def __exit__(self, et, ev, tb):
        print("exit", self.name)


with Ctx("a") as a, Ctx("b"):
    print("body", a.name)


# exceptions
class TileError(ValueError):
    pass


def check(v: int) -> Optional[int]:
    if v < 0:
        raise TileError(f"negative {v}")
    return v


for v in [1, -2]:
    try:
        check(v)
    except ValueError as e:
        print("caught", isinstance(e, TileError), str(e), e.args)
    else:
        print("ok", v)
    finally:
        print("finally", v)
try:
    {}["x"]
except (IndexError, KeyError) as e:
    print("lookup")
try:
    1 // 0
except ArithmeticError:
    print("arith")
try:
    [][3]
except LookupError:
    print("index")
try:
    try:
        raise RuntimeError("inner")
    except RuntimeError:
        raise
except Exception as e:
    print("reraised", e)


def early():
    try:
        return "try"
    finally:
        print("cleanup")


print(early())
lst = [1, 2, 3, 4]
del lst[1], lst[-1]
d = {"a": 1, "b": 2}
del d["a"]
z = 3
del z
print(lst, d)
