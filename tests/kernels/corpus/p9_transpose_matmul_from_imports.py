from neuronxcc.nki import jit
from neuronxcc.nki.language import mgrid, load, store, ndarray, zeros, copy, tile_size, psum, sbuf, shared_hbm, float32, affine_range
from neuronxcc.nki.isa import nc_matmul, nc_transpose


@jit
def transpose_matmul(a, b):
    """C = A^T B with A (K, M): names imported from the modules (no module alias at all), a
    bare @jit, index grids from mgrid read through the .p/.x attributes, the tile sizes from
    nl.tile_size constants, and the moving tile width derived from gemm_moving_fmax."""
    K, M = a.shape
    _, N = b.shape
    P = tile_size.pmax
    F = tile_size.gemm_moving_fmax
    S = tile_size.gemm_stationary_fmax
    out = ndarray((M, N), dtype=float32, buffer=shared_hbm)
    ga = mgrid[0:P, 0:S]
    gb = mgrid[0:P, 0:F]
    go = mgrid[0:S, 0:F]
    for m in affine_range(M // S):
        for n in affine_range(N // F):
            acc = zeros((S, F), dtype=float32, buffer=psum)
            for k in affine_range(K // P):
                at = load(a[k * P + ga.p, m * S + ga.x])
                bt = load(b[k * P + gb.p, n * F + gb.x])
                acc += nc_matmul(at, bt)
            store(out[m * S + go.p, n * F + go.x], value=copy(acc, dtype=float32))
    return out
