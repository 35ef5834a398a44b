# SPMD launches: a 2-D grid `kernel[2, 2](...)` with nl.program_id(0/1), nl.num_programs and
# nl.program_ndim; a grid with nl.spmd_dim(..., nl.nc(2)); one shared_hbm output shared by all
# programs of a launch.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def scale_tiles(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    assert nl.program_ndim() == 2
    n_rows = x.shape[0] // nl.num_programs(0)
    n_cols = x.shape[1] // nl.num_programs(axes=1)
    r0 = nl.program_id(0) * n_rows
    c0 = nl.program_id(axis=1) * n_cols
    t = nl.load(x[r0:r0 + n_rows, c0:c0 + n_cols])
    pid = nl.program_id(0) * nl.num_programs(1) + nl.program_id(1)
    nl.store(out[r0:r0 + n_rows, c0:c0 + n_cols], value=nl.add(t, float(pid)))
    return out


@nki.jit
def add_one(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    rows = x.shape[0] // nl.num_programs()
    t = nl.load(x[i * rows:(i + 1) * rows, :])
    nl.store(out[i * rows:(i + 1) * rows, :], value=t + 1.0)
    return out


def kernel(x):
    a = scale_tiles[2, 2](x)
    b = add_one[nl.spmd_dim(2, nl.nc(2))](x)
    return a, b
