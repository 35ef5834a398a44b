# A depthwise 1-D convolution along the free axis in the newer `nki` API: each row tile is copied
# into a zero-filled SBUF buffer with K-1 columns of left padding (nisa.memset, then dma_copy into
# the middle), the per-row tap weights are loaded once, and the K taps accumulate in place with
# nisa.scalar_tensor_tensor (tap * weight + acc), the accumulator written with dst=. Row tiles
# run in nl.affine_range, taps in nl.sequential_range.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def conv1d_causal(x, w):
    rows, cols = x.shape
    _, taps = w.shape
    out = nl.ndarray((rows, cols), dtype=nl.float32, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        padded = nl.ndarray((128, cols + taps - 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=padded, value=0.0)
        nisa.dma_copy(dst=padded[:, taps - 1:taps - 1 + cols], src=x[r * 128:(r + 1) * 128, :])
        wt = nl.ndarray((128, taps), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=wt, src=w[r * 128:(r + 1) * 128, :])
        acc = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=0.0)
        for k in nl.sequential_range(taps):
            nisa.scalar_tensor_tensor(dst=acc, data=padded[:, k:k + cols], op0=nl.multiply, operand0=wt[:, k:k + 1],
                                      op1=nl.add, operand1=acc)
        nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, :], src=acc)
    return out


kernel = conv1d_causal
