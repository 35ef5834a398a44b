# Instructions assigned into existing tensors write there directly (no copy records): a load
# into a block of a block-dim tensor, matmul += into PSUM, and nl.copy evacuating PSUM to SBUF.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

INPUT_SHAPES = [(256, 128), (256, 512)]


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.shared_hbm)
    at = nl.ndarray((2, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf)
    bt = nl.ndarray((2, nl.par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf)
    acc = nl.zeros((nl.par_dim(128), 512), dtype=np.float32, buffer=nl.psum)
    for k in nl.affine_range(2):
        at[k, nl.arange(128)[:, None], nl.arange(128)[None, :]] = nl.load(a[128 * k + nl.arange(128)[:, None], nl.arange(128)[None, :]])
        bt[k] = nl.load(b[k * 128:(k + 1) * 128, :])
        acc[...] += nisa.nc_matmul(at[k], bt[k])
    res = nl.ndarray((nl.par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf)
    res[...] = nl.copy(acc, dtype=np.float32)
    nl.store(out, value=res)
    return out
