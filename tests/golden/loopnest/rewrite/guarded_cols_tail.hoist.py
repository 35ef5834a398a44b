# Legacy API (nl.load / nl.store): guarded_cols_plain.py's nest over NT = N // 512 full column
# blocks, then the ragged last block under `if rem > 0:` inside the row loop (decided while tracing:
# false at N = 1024, nothing of it lifted; true at N = 1280, its weight load invariant in `for m`
# and hoisted before it like a statement of the row loop's body).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(xT, w):
    K, M = xT.shape
    _, N = w.shape
    NB = 512
    NT = N // NB
    rem = N % NB
    out = nl.ndarray((M, N), dtype=xT.dtype, buffer=nl.shared_hbm)
    if rem > 0:
        w_tail = nl.load(w[:, nl.ds(NT * NB, rem)])
    for m in nl.affine_range(M // 128):
        lhsT = nl.load(xT[:, nl.ds(m * 128, 128)])
        for n in nl.affine_range(NT):
            wt = nl.load(w[:, nl.ds(n * NB, NB)])
            ps = nisa.nc_matmul(lhsT, wt)
            res = nl.copy(ps, dtype=xT.dtype)
            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * NB, NB)], value=res)
        if rem > 0:
            ps_tail = nisa.nc_matmul(lhsT, w_tail)
            res_tail = nl.copy(ps_tail, dtype=xT.dtype)
            nl.store(out[nl.ds(m * 128, 128), nl.ds(NT * NB, rem)], value=res_tail)
    return out
