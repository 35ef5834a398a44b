# Python a kernel file may use around the NKI calls: a small class with methods and class
# attributes, raise for invalid arguments, try/except, global constants changed through
# `global`, nonlocal counters in closures, for/while-else, `del`, lambdas, keyword-only
# arguments and *args, nested helpers writing into outer tensors through subscripts, typing
# imports and annotations, dict/set/list comprehensions, and a module-level helper kernel.
from typing import Optional, Tuple
import math
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

TILE = 64
CALLS = 0


class TileSpec:
    """Where a tile lives in the input."""
    partitions = 128

    def __init__(self, index: int, width: int = TILE):
        self.index = index
        self.width = width

    def cols(self):
        return slice(self.index * self.width, (self.index + 1) * self.width)

    def __repr__(self):
        return f"TileSpec({self.index}, {self.width})"


def check_shape(x, expected: Tuple[int, int]) -> None:
    if tuple(x.shape) != expected:
        raise ValueError(f"expected {expected}, got {x.shape}")


def count_call():
    global CALLS
    CALLS += 1
    return CALLS


def scaled(t, *factors, bias: Optional[float] = None):
    f = 1.0
    for v in factors:
        f *= v
    y = nl.multiply(t, f)
    if bias is not None:
        y = nl.add(y, bias)
    return y


@nki.jit
def kernel(x):
    check_shape(x, (128, 4 * TILE))
    try:
        check_shape(x, (1, 1))
        raise AssertionError("check_shape accepted a wrong shape")
    except ValueError as e:
        assert "expected (1, 1)" in str(e)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    res = nl.ndarray((128, 4 * TILE), dtype=x.dtype, buffer=nl.sbuf)
    specs = [TileSpec(i) for i in range(x.shape[1] // TILE)]
    by_index = {s.index: s for s in specs}
    widths = {s.width for s in specs}
    assert widths == {TILE} and repr(by_index[2]) == "TileSpec(2, 64)"
    seen = 0

    def process(spec: TileSpec):
        nonlocal seen
        seen += 1
        t = nl.load(x[:, spec.cols()])
        res[:, spec.cols()] = scaled(t, 2.0, 0.5, bias=float(spec.index))

    for spec in specs:
        process(spec)
    else:
        count_call()
    for i in range(3):
        if i == 10:
            break
    else:
        count_call()
    k = 0
    while k < 2:
        k += 1
    else:
        count_call()
    assert seen == len(specs) and CALLS == 3, (seen, CALLS)
    tmp = [1, 2, 3]
    del tmp[0]
    del tmp
    square = lambda v: v * v
    assert square(3) == 9 and math.isclose(math.sqrt(2.0) ** 2, 2.0)
    nl.store(out, value=res)
    return out
