import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def ema_chunk(x_tile, decay_tile, drive_scale: float, state):
    """One chunk of the exponential moving average y_t = a * y_{t-1} + (1 - a) * x_t.

    Uses nisa.tensor_tensor_scan (op0=multiply against the carry, op1=add of the drive).
    """
    drive = nl.multiply(x_tile, drive_scale)
    return nisa.tensor_tensor_scan(decay_tile, drive, initial=state, op0=np.multiply, op1=np.add)


@nki.jit
def ema_kernel(x, alpha: float = 0.9, chunk: int = 256):
    """Exponential moving average along each row of x [R, C], streamed in column chunks.

    The last column of each chunk is carried into the next chunk through `state`.
    """
    R, C = x.shape
    assert R % 128 == 0 and C % chunk == 0, "shape must tile evenly"
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    decay = nl.full((128, chunk), alpha, dtype=nl.float32)
    for r in nl.affine_range(R // 128):
        state = nl.zeros((128, 1), dtype=nl.float32)
        for c in nl.sequential_range(C // chunk):
            cols = nl.ds(c * chunk, chunk)
            t = nl.load(x[r * 128:(r + 1) * 128, cols])
            y = ema_chunk(t, decay, 1.0 - alpha, state)
            nl.store(out[r * 128:(r + 1) * 128, cols], value=y)
            state = nl.copy(y[:, chunk - 1:chunk])
    return out
