# Upper-triangle merge in the newer `nki` API: nisa.iota(dst=, pattern=, offset=,
# channel_multiplier=) writes column - row of every element, a destination-first tensor_scalar
# compares it with the row tile's offset (a loop-dependent float operand) into a uint8 predicate,
# and nisa.tensor_copy_predicated(dst=, src=, predicate=) overwrites the selected elements.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x, y):
    R, C = x.shape
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(R // 128):
        a = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=x[t * 128:(t + 1) * 128, :])
        b = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=b, src=y[t * 128:(t + 1) * 128, :])
        pos = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
        nisa.iota(dst=pos, pattern=[[1, C]], offset=0, channel_multiplier=-1)
        pred = nl.ndarray((128, C), dtype=nl.uint8, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=pred, data=pos, op0=nl.greater_equal, operand0=float(t * 128))
        nisa.tensor_copy_predicated(dst=a, src=b, predicate=pred)
        nisa.dma_copy(dst=out[t * 128:(t + 1) * 128, :], src=a)
    return out
