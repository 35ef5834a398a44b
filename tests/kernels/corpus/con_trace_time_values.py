# Trace-time Python an author computes from shapes with the builtins, math and numpy before any
# tile work (nki-language.md 3.1: it runs at compile time): all() / any() over the shape, np.finfo
# and np.iinfo limits, math.log2 of a size, isinstance / bool / str checks, pow, np.prod of a
# shape, int.bit_length. The launch is a 2-D SPMD grid with nl.spmd_dim whose programs count
# themselves with nl.num_programs() (no axes: the whole grid, 3.10).
import math

import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def clamp_rows(x):
    P, F = x.shape
    assert all(d % 64 == 0 for d in x.shape) and not any(d == 0 for d in x.shape), f"shape {x.shape}"
    assert isinstance(F, int) and bool(F) and str(F).isdigit()
    levels = int(math.log2(F))
    big = np.finfo(np.float32).max
    assert np.iinfo(np.int32).max > P * F
    count = int(np.prod(x.shape))
    width = F.bit_length()
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    n = nl.num_programs()
    rows = P // n
    pid = nl.program_id(0) * nl.num_programs(1) + nl.program_id(1)
    t = nl.load(x[pid * rows:(pid + 1) * rows, :])
    y = nl.minimum(nl.multiply(t, float(levels)), big)
    y = nl.maximum(y, -pow(2.0, width))
    nl.store(out[pid * rows:(pid + 1) * rows, :], value=nl.add(y, float(count % 7)))
    return out


def kernel(x):
    return clamp_rows[nl.spmd_dim(2, nl.nc(2)), 2](x)
