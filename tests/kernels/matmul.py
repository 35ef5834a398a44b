# Tensor Engine: identity transposes (nc_matmul is_transpose=True into PSUM, nl.copy to SBUF),
# K-tiled PSUM accumulation with `+=` on a subscript, and nl.matmul accumulated on a name.
# a is (M=128, K=256), b is (K=256, N=512); both outputs are a @ b.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.shared_hbm)
    out2 = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.shared_hbm)
    ident = nl.shared_constant(np.identity(128, dtype=np.float32))
    idt = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf)
    idt[...] = nl.load(ident)
    a_sb = nl.load(a)
    aT = nl.ndarray((2, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf)
    for k in nl.affine_range(2):
        tp = nl.zeros((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
        tp[...] = nisa.nc_matmul(a_sb[:, k * 128:(k + 1) * 128], idt, is_stationary_onezero=False, is_moving_onezero=True, is_transpose=True, mask=None)
        aT[k] = nl.copy(tp, dtype=np.float32)
    acc = nl.zeros((nl.par_dim(128), 512), dtype=np.float32, buffer=nl.psum)
    res_psum = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(2):
        b_sb = nl.load(b[k * 128:(k + 1) * 128, :])
        acc[...] += nisa.nc_matmul(aT[k], b_sb)
        res_psum += nl.matmul(a_sb[:, k * 128:(k + 1) * 128], b_sb)
    nl.store(out, value=nl.copy(acc, dtype=np.float32))
    nl.store(out2, value=nl.copy(res_psum, dtype=np.float32))
    return out, out2
