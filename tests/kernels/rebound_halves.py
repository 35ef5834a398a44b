# Legacy API (nl.load / nl.store): out = xT.T @ w for N = 1024 written as two column halves in the
# row loop, both weight halves loaded into `wt` (the second load binds the name again). Each load is
# the same in every row tile, but neither may be printed before `for m`: hoisted, the first half's
# `wt` is the second half's from the second row tile on; the second half's, the first's in every
# row tile. hoist offers neither (tests/unit/loopnest/hoist_rebound_test.cpp); renamed_halves.py,
# naming them apart, is offered both.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(xT, w):
    K, M = xT.shape
    _, N = w.shape
    H = N // 2
    out = nl.ndarray((M, N), dtype=xT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        lhsT = nl.load(xT[:, nl.ds(m * 128, 128)])
        wt = nl.load(w[:, 0:H])
        ps = nisa.nc_matmul(lhsT, wt)
        res = nl.copy(ps, dtype=xT.dtype)
        nl.store(out[nl.ds(m * 128, 128), 0:H], value=res)
        wt = nl.load(w[:, H:N])
        ps = nisa.nc_matmul(lhsT, wt)
        res = nl.copy(ps, dtype=xT.dtype)
        nl.store(out[nl.ds(m * 128, 128), H:N], value=res)
    return out
