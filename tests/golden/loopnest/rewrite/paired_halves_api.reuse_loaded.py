# Buffers made by a generator and unpacked in helpers, the newer API: a (128, S) tensor x is
# scaled per column by a (64, S) weight row block w that is needed on both partition halves,
# so the fill helper loads the same w region twice, once into each half of `wt`. The tuple
# `stage = tuple(nl.ndarray(...) for _ in range(2))` is bound by name and unpacked by each helper
# (`xt, wt = stage`). Lifted, its items are named tensors that print as the tuple's items
# (`stage[1][...]`) once the helpers are opened, and the second load of w is a region the
# first already brought on chip (reuse_loaded copies it across the partition halves).
import nki
import nki.language as nl
import nki.isa as nisa

P = 128
H = 64
F = 512


def fill(stage, x, w, c0):
    xt, wt = stage
    nisa.dma_copy(dst=xt, src=x[:, c0:c0 + F])
    nisa.dma_copy(dst=wt[0:H, :], src=w[:, c0:c0 + F])
    nisa.tensor_copy(dst=stage[1][64:128, :], src=stage[1][0:64, :])


def drain(stage, out, c0):
    xt, wt = stage
    y = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=y, data1=xt, data2=wt, op=nl.multiply)
    nisa.dma_copy(dst=out[:, c0:c0 + F], src=y)


@nki.jit
def kernel(x, w):
    D, S = x.shape
    out = nl.ndarray((D, S), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(S // F):
        stage = tuple(nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf) for _ in range(2))
        fill(stage, x, w, j * F)
        drain(stage, out, j * F)
    return out
