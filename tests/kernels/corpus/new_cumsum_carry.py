# Row prefix sums in the newer `nki` API: each row tile's columns are cut into 128-wide chunks
# walked in an nl.sequential_range; the first chunk starts the Vector Engine's accumulator
# (reduce_cmd=reset_reduce) and later chunks continue it (reduce_cmd=reduce), so the running sum
# carries across chunks inside the instruction instead of through an extra add. Row tiles run
# in an nl.affine_range; loads and stores are nisa.dma_copy with dst=.
import nki
import nki.isa as nisa
import nki.language as nl

CHUNK = 128


@nki.jit
def cumsum_rows(x, scale):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=nl.float32, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        for c in nl.sequential_range(cols // CHUNK):
            t = nl.ndarray((128, CHUNK), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[r * 128:(r + 1) * 128, c * CHUNK:(c + 1) * CHUNK])
            acc = nl.ndarray((128, CHUNK), dtype=nl.float32, buffer=nl.sbuf)
            cmd = nisa.reduce_cmd.reset_reduce if c == 0 else nisa.reduce_cmd.reduce
            nisa.tensor_scalar_cumulative(dst=acc, src=t, op0=nl.multiply, op1=nl.add, imm0=scale, reduce_cmd=cmd)
            nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, c * CHUNK:(c + 1) * CHUNK], src=acc)
    return out


kernel = cumsum_rows
