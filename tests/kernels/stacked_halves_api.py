# Newer nki API, the same stacked halves as stacked_halves_nisa.py: each tile made once above the
# loop, its two 64-partition halves filled by dma_copy and then read whole.
import nki
import nki.language as nl
import nki.isa as nisa

F = 256


@nki.jit
def kernel(a, b):
    H, S = a.shape
    out = nl.ndarray((H, S), dtype=a.dtype, buffer=nl.shared_hbm)
    ta = nl.ndarray((2 * H, F), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((2 * H, F), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.sequential_range(S // (2 * F)):
        c0 = i * 2 * F
        nisa.dma_copy(dst=ta[0:H, :], src=a[:, c0:c0 + F])
        nisa.dma_copy(dst=ta[H:2 * H, :], src=a[:, c0 + F:c0 + 2 * F])
        nisa.dma_copy(dst=tb[0:H, :], src=b[:, c0:c0 + F])
        nisa.dma_copy(dst=tb[H:2 * H, :], src=b[:, c0 + F:c0 + 2 * F])
        nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.multiply)
        nisa.dma_copy(dst=out[:, c0:c0 + F], src=ta[0:H, :])
        nisa.dma_copy(dst=out[:, c0 + F:c0 + 2 * F], src=ta[H:2 * H, :])
    return out
