# Newer API, destination-first: the kernel hands each 128-channel block to a helper of the module
# whose column width is a parameter with a default (`cols=1024`: 4 KiB fp32 rows per partition,
# wider than a PSUM bank) that the call leaves; the helper broadcasts each row of w onto the
# partitions on chip (`nl.broadcast_to`). broadcast_on_chip (and free_size) narrow that default.
# out[c, m] = sum_s x[c, m] * w[s, m].
import nki
import nki.language as nl
import nki.isa as nisa


def _block(x, w, out, r0, cols=1024):
    width = x.shape[1]
    steps = w.shape[0]
    for j in nl.affine_range(width // cols):
        x_t = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_t, src=x[r0:r0 + 128, j * cols:(j + 1) * cols])
        acc = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=0.0)
        for s in nl.sequential_range(steps):
            w_row = nl.ndarray((1, cols), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=w_row, src=w[s:s + 1, j * cols:(j + 1) * cols])
            prod = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=prod, data1=x_t, data2=nl.broadcast_to(w_row, shape=(128, cols)), op=nl.multiply)
            nisa.tensor_tensor(dst=acc, data1=acc, data2=prod, op=nl.add)
        nisa.dma_copy(dst=out[r0:r0 + 128, j * cols:(j + 1) * cols], src=acc)


@nki.jit
def kernel(x, w):
    C, M = x.shape
    out = nl.ndarray((C, M), dtype=x.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(C // 128):
        _block(x, w, out, ct * 128)
    return out
