# A factory choosing the kernel's activation by name with try/except KeyError (nki-language.md
# 3.1, 12.1: ordinary Python at trace time), the newer nki API, `@nki.jit(mode=...)` on the def it
# returns, a tile height and a dtype from the factory's arguments (a dtype's itemsize sizing the
# column tile).
import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa

ACTIVATIONS = {"exp": nl.exp, "tanh": nl.tanh}


def make(act_name="gelu_apprx", rows=64, dtype=np.float32):
    try:
        act = ACTIVATIONS[act_name]
    except KeyError:
        act = nl.tanh
    cols = 256 // np.dtype(dtype).itemsize

    @nki.jit(mode="simulation")
    def k(x):
        M, N = x.shape
        out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
        for i in range(M // rows):
            for j in range(N // cols):
                t = nl.ndarray((rows, cols), dtype=dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=t, src=x[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols])
                y = nl.ndarray((rows, cols), dtype=dtype, buffer=nl.sbuf)
                nisa.activation(dst=y, op=act, data=t)
                nisa.dma_copy(dst=out[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols], src=y)
        return out

    return k


kernel = make(rows=64)
