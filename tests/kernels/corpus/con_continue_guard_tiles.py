# Guard clauses in tile loops (nki-language.md 12.1: Python semantics hold for loops and branches;
# 3.1): `if ...: <tile work>; continue` skips the rest of the iteration. The conditions depend only
# on the loop variables; an `elif` follows one guard, another loop nests inside an affine_range.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, w):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    side = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    wt = nl.load(w)
    for b in nl.affine_range(M // 128):
        rows = nl.load(x[b * 128:(b + 1) * 128, :])
        if b == 0:
            # the first band passes through
            nl.store(out[b * 128:(b + 1) * 128, :], value=rows)
            continue
        elif b == 2:
            rows = nl.multiply(rows, wt)
        if b > 2:
            nl.store(out[b * 128:(b + 1) * 128, :], value=nl.subtract(rows, 1.0))
            continue
        nl.store(out[b * 128:(b + 1) * 128, :], value=nl.add(rows, wt))
    for b in nl.affine_range(M // 128):
        for c in range(N // 32):
            part = nl.load(x[b * 128:(b + 1) * 128, c * 32:(c + 1) * 32])
            if (b + c) % 2 == 0:
                nl.store(side[b * 128:(b + 1) * 128, c * 32:(c + 1) * 32], value=nl.exp(part))
                continue
            nl.store(side[b * 128:(b + 1) * 128, c * 32:(c + 1) * 32], value=nl.negative(part))
    return out, side
