# Column sums of a tall matrix as a user writes them after the tutorials: row blocks addressed
# with nl.ds(start, size), an SBUF accumulator carried across a nl.sequential_range with
# `acc[...] = nl.add(acc, tile)`, the partition reduction as a matmul against a ones column made
# by nl.full, f-string asserts (including the self-documenting `{N=}` form) and
# nl.tile_size constants for the limits.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def column_sums(x):
    M, N = x.shape
    P = nl.tile_size.pmax
    assert M % P == 0, f"rows {M} must be a multiple of {P}"
    assert N <= nl.tile_size.gemm_moving_fmax, f"{N=} is wider than one matmul"
    out = nl.ndarray((1, N), dtype=x.dtype, buffer=nl.shared_hbm)

    acc = nl.zeros((P, N), dtype=nl.float32, buffer=nl.sbuf)
    for r in nl.sequential_range(M // P):
        tile = nl.load(x[nl.ds(r * P, P), :])
        acc[...] = nl.add(acc, tile)

    ones = nl.full((P, 1), 1.0, dtype=nl.float32)
    total = nisa.nc_matmul(ones, acc)  # (1, N) in PSUM: ones.T @ acc
    nl.store(out, value=nl.copy(total, dtype=x.dtype))
    return out
