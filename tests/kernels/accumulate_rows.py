# Tiles style: per 128-row tile of x (256, 512), an fp32 accumulator of one PSUM bank's width
# ([128, 512]) made in the row loop and accumulated over a state loop of 4 weight rows
# (acc += x * w[s], the Vector Engine's multiply and fp32 add), then stored. psum_accumulate
# declares it in PSUM: the adds read one input from PSUM and stream at N instead of 2N.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    rows, cols = x.shape
    states, _ = w.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        x_tile = nl.load(x[r * 128:(r + 1) * 128, :])
        acc = nl.zeros((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        for s in nl.affine_range(states):
            w_row = nl.load(w[s:s + 1, :]).broadcast_to((128, cols))
            acc += nisa.tensor_tensor(x_tile, w_row, op=nl.multiply)
        nl.store(out[r * 128:(r + 1) * 128, :], acc)
    return out
