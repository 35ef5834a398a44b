# Buffers made by a list comprehension and unpacked where they are made (`xt, wt = [nl.ndarray(...)
# for _ in range(2)]`), the newer API: each is a tensor named by its target, printed back as the
# author wrote it (before session 21 the list became one tensor with no name, and a changed
# statement printed its items as `[0][...]`). The weight rows are needed on both partition
# halves and read from HBM twice (reuse_loaded). x (128, S), w (64, S): out = x * [w; w].
import nki
import nki.language as nl
import nki.isa as nisa

F = 512


@nki.jit
def kernel(x, w):
    D, S = x.shape
    H = D // 2
    out = nl.ndarray((D, S), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(S // F):
        xt, wt = [nl.ndarray((D, F), dtype=x.dtype, buffer=nl.sbuf) for _ in range(2)]
        nisa.dma_copy(dst=xt, src=x[:, j * F:(j + 1) * F])
        nisa.dma_copy(dst=wt[0:H, :], src=w[:, j * F:(j + 1) * F])
        nisa.dma_copy(dst=wt[H:D, :], src=w[:, j * F:(j + 1) * F])
        y = nl.ndarray((D, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y, data1=xt, data2=wt, op=nl.multiply)
        nisa.dma_copy(dst=out[:, j * F:(j + 1) * F], src=y)
    return out
