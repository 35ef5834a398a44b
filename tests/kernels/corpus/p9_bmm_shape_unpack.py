import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def bmm(lhs, rhs):
    """Batched matmul with shapes unpacked in odd ways (a starred tuple target, `_` for the
    repeated K, a conditional expression for the N tile, len() of the shape), integer batch
    indices on the 3-D HBM inputs, and a dtype= cast on the copy out of PSUM."""
    B, *mk = lhs.shape
    M, K = mk
    _, _, N = rhs.shape
    n_tile = 512 if N >= 512 else N
    assert len(rhs.shape) == 3
    out = nl.ndarray((B, M, N), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(B):
        for m in nl.affine_range(M // 128):
            lT = nl.load_transpose2d(lhs[b, m * 128:(m + 1) * 128, :])
            for n in nl.affine_range(N // n_tile):
                r = nl.load(rhs[b, :, n * n_tile:(n + 1) * n_tile])
                ps = nisa.nc_matmul(lT, r)
                nl.store(out[b, m * 128:(m + 1) * 128, n * n_tile:(n + 1) * n_tile],
                         value=nl.copy(ps, dtype=out.dtype))
    return out
