# Legacy API (nl.load / nl.store): guarded_cols_plain.py's nest, the whole of it under `if M % 128
# == 0:` (decided true while tracing: it compares shapes).
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
    if M % 128 == 0:
        for m in nl.affine_range(M // 128):
            lhsT = nl.load(xT[:, nl.ds(m * 128, 128)])
            for n in nl.affine_range(NT):
                wt = nl.load(w[:, nl.ds(n * NB, NB)])
                ps = nisa.nc_matmul(lhsT, wt)
                res = nl.copy(ps, dtype=xT.dtype)
                nl.store(out[nl.ds(m * 128, 128), nl.ds(n * NB, NB)], value=res)
    return out
