# Legacy API (nl.load / nl.store): rebound_halves.py with the two weight halves named apart (`w_lo`,
# `w_hi`): each load is the same in every row tile and hoist offers to print it before `for m`
# (tests/unit/loopnest/hoist_rebound_test.cpp).
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
        w_lo = nl.load(w[:, 0:H])
        ps = nisa.nc_matmul(lhsT, w_lo)
        res = nl.copy(ps, dtype=xT.dtype)
        nl.store(out[nl.ds(m * 128, 128), 0:H], value=res)
        w_hi = nl.load(w[:, H:N])
        ps = nisa.nc_matmul(lhsT, w_hi)
        res = nl.copy(ps, dtype=xT.dtype)
        nl.store(out[nl.ds(m * 128, 128), H:N], value=res)
    return out
