# nki API: each row block is loaded by one helper and transformed by another (exp, then a scale on
# the Vector Engine). A move inside `_scaled_exp` (helpers=open) prints that helper opened and leaves
# `_load_rows` the call the author wrote (reclose_calls.cpp). x (256, 512).
import nki
import nki.language as nl
import nki.isa as nisa

ROWS = 128


def _load_rows(src, r):
    """One block of ROWS rows of src into SBUF."""
    t = nl.ndarray((ROWS, src.shape[1]), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=src[r * ROWS:(r + 1) * ROWS, :])
    return t


def _scaled_exp(t):
    e = nl.ndarray(t.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=e, op=nl.exp, data=t)
    s = nl.ndarray(t.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=s, data=e, op0=nl.multiply, operand0=0.5, engine=nisa.gpsimd_engine)
    return s


@nki.jit
def kernel(x):
    R, F = x.shape
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // ROWS):
        t = _load_rows(x, r)
        y = _scaled_exp(t)
        nisa.dma_copy(dst=out[r * ROWS:(r + 1) * ROWS, :], src=y)
    return out
