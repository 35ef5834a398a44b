# Floor division and modulo of nl.arange indices by constants (quasi-affine): the operands keep
# the access pattern of the digits -- a (128, 512) tile gathered from (128, 4, 128) rows is one
# contiguous 2 KiB run per partition; partitions taken as p // 2, p % 2 of (64, 2, 64) are rows 64
# elements apart; a column-major read (f % 16, f // 16) is strided. A mask on f % 2 is tested
# element by element.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

INPUT_SHAPES = [(128, 4, 128), (64, 2, 64), (16, 64)]


@nki.jit
def kernel(a, b, c):
    out = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    ta = nl.load(a[i_p, i_f // 128, i_f % 128])
    i_g = nl.arange(64)[None, :]
    tb = nl.load(b[i_p // 2, i_p % 2, i_g])
    i_q = nl.arange(16)[:, None]
    i_h = nl.arange(64)[None, :]
    tc = nl.load(c[i_h % 16, i_h // 16 + 4 * i_q])
    td = nl.multiply(ta, 2.0, mask=(i_f % 2 == 0))
    nl.store(out[i_p, i_f], value=td)
    return out
