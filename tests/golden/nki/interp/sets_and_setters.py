# Set operators and methods, and property setters, as helper code in kernel files uses them;
# prints what CPython prints (sets printed sorted: CPython's element order is by hash).
a = {1, 2, 3, 4}
b = {3, 4, 5}
print(sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b), sorted(b - a))
print(a <= b, {3, 4} <= b, {3, 4} < b, b < b, b <= b, a >= {1, 2}, a > a, a == {4, 3, 2, 1}, a != b)
print(sorted(a.union(b, [9])), sorted(a.intersection(b)), sorted(a.difference(b, {1})), sorted(a.symmetric_difference(b)))
print(a.issubset(range(10)), a.issuperset([1, 2]), a.isdisjoint({7, 8}), a.isdisjoint(b))
c = set(a)
alias = c
c |= {10}
c -= {1}
c &= {2, 3, 10, 11}
c ^= {3, 12}
print(sorted(c), alias is c, sorted(alias))
d = {"x", "y"}
d.update(["z"], ("w",))
d.discard("nope")
d.discard("x")
d.remove("y")
print(sorted(d), len(d))
try:
    d.remove("y")
except KeyError as e:
    print("KeyError", e)
e = d.copy()
e.clear()
print(len(e), len(d), sorted(d.difference_update({"z"}) or d))
seen = set()
for name in ["i", "j", "i", "k", "j"]:
    seen |= {name}
print(sorted(seen), len(seen), {1, 2}.pop() in (1, 2))


class Tile:
    def __init__(self, rows):
        self._rows = rows
        self.log = []

    @property
    def rows(self):
        return self._rows

    @rows.setter
    def rows(self, value):
        if value > 128:
            raise ValueError(f"partition dim {value} > 128")
        self.log.append(value)
        self._rows = value

    @property
    def fixed(self):
        return 7

    def get_cols(self):
        return self._cols

    def set_cols(self, v):
        self._cols = v * 2

    cols = property(get_cols, set_cols)


t = Tile(64)
t.rows = 128
print(t.rows, t.log)
try:
    t.rows = 256
except ValueError as err:
    print("ValueError:", err)
try:
    t.fixed = 3
except AttributeError:
    print("read-only property")
t.cols = 5
print(t.cols, t.rows, t.fixed)
