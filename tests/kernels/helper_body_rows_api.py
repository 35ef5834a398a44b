# nki API: a module helper `_gate` (a * sigmoid(b) into fresh tiles) called from two loops, the
# left and the right half of the columns. A move of one of its statements (the multiply's engine)
# is made at both calls and printed in `_gate`'s body, the calls as written (helpers=body,
# src/loopnest/helper_bodies.h). a, b (256, 1024).
import nki
import nki.language as nl
import nki.isa as nisa

ROWS = 128


def _gate(a_t, b_t):
    g = nl.ndarray(b_t.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=g, op=nl.sigmoid, data=b_t)
    y = nl.ndarray(a_t.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=y, data1=a_t, data2=g, op=nl.multiply)
    return y


def _load(src, r, c0, width):
    t = nl.ndarray((ROWS, width), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=src[r * ROWS:(r + 1) * ROWS, c0:c0 + width])
    return t


@nki.jit
def kernel(a, b):
    R, F = a.shape
    half = F // 2
    out = nl.ndarray((R, F), dtype=a.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // ROWS):
        y = _gate(_load(a, r, 0, half), _load(b, r, 0, half))
        nisa.dma_copy(dst=out[r * ROWS:(r + 1) * ROWS, 0:half], src=y)
    for r in nl.affine_range(R // ROWS):
        y = _gate(_load(a, r, half, half), _load(b, r, half, half))
        nisa.dma_copy(dst=out[r * ROWS:(r + 1) * ROWS, half:F], src=y)
    return out
