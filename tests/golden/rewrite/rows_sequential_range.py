# inputs: 512x256, 512x256
import neuronxcc.nki as nki
import neuronxcc.nki.language as lang
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
    """x * y per tile of 128 rows, stepped through in a sequential_range, and the products summed
    over the tiles into one accumulator: the tiles depend on each other only through that sum, so
    the loop may be an affine_range (affine_loop; its golden is
    tests/golden/loopnest/rewrite/rows_sequential_range.affine_loop.py)."""
    rows, cols = x.shape
    out = lang.ndarray((rows, cols), dtype=x.dtype, buffer=lang.shared_hbm)
    total = lang.ndarray((128, cols), dtype=lang.float32, buffer=lang.shared_hbm)
    acc = lang.zeros((128, cols), dtype=lang.float32, buffer=lang.sbuf)
    for r0 in lang.sequential_range(0, rows, 128):  # one tile of rows
        xt = lang.load(x[r0:r0 + 128, :])
        yt = lang.load(y[r0:r0 + 128, :])
        p = nisa.tensor_tensor(xt, yt, op=lang.multiply)
        lang.store(out[r0:r0 + 128, :], value=p)
        acc += p
    lang.store(total, value=acc)
    return out, total
