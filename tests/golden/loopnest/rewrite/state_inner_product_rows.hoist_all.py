# A product that does not depend on the innermost loop, computed inside it from operands loaded
# there (a generated kernel's state loop inside its row loop): out = x * y * sum_s w[:, s].
# x, y (256, 512), w (256, 4). hoist_compute takes the two loads and the product out of the state
# loop in one move (before, it left only loops with a loop inside them around the instruction).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, y, w):
    R, C = x.shape
    S = w.shape[1]
    out = nl.ndarray((R, C), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(R // 128):
        acc = nl.zeros((128, C), dtype=nl.float32, buffer=nl.sbuf)
        x_t = nl.load(x[i * 128:(i + 1) * 128, :])
        y_t = nl.load(y[i * 128:(i + 1) * 128, :])
        xy = nl.multiply(x_t, y_t)
        for s in nl.sequential_range(S):
            w_col = nl.load(w[i * 128:(i + 1) * 128, s:s + 1])
            acc[...] = nl.add(acc, nl.multiply(xy, w_col))
        nl.store(out[i * 128:(i + 1) * 128, :], value=acc)
    return out
