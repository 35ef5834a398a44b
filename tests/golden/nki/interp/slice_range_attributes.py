# Data attributes of slice and range objects (`cols.stop - cols.start` sizing a tile from the
# slice a helper was given; `range(...).stop` as a trip bound). Expected output is CPython's.
cols = slice(512, 1024)
print(cols.start, cols.stop, cols.step, cols.stop - cols.start)
print(slice(8).start, slice(8).stop, slice(1, 9, 2).step)
for r in [range(5), range(2, 10), range(10, 0, -3), range(0)]:
    print(r.start, r.stop, r.step, len(r))
def width(s):
    return (s.stop - s.start) // (s.step or 1)
print(width(slice(128, 640)), width(slice(0, 8, 2)))
print(hasattr(cols, "stop"), hasattr(range(3), "step"), hasattr(cols, "size"))
try:
    cols.size
except AttributeError as e:
    print("AttributeError", e)
