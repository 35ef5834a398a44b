# nc_matmul's is_stationary_onezero / is_moving_onezero reach the trace (onezero=...): the cost
# model halves the fp32 factor for a flagged fp32 operand (ISA nc_matmul). The transpose idiom of
# the NKIBench kernels flags the identity (moving); a ones vector as stationary sums partitions.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

INPUT_SHAPES = [(128, 128)]


@nki.jit
def kernel(a):
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    a_sb = nl.load(a)
    ident = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident_sb = nl.load(ident)
    t_ps = nisa.nc_matmul(a_sb, ident_sb, is_stationary_onezero=False, is_moving_onezero=True, is_transpose=True)
    ones = nl.ones((128, 128), dtype=nl.float32)
    s_ps = nisa.nc_matmul(ones, a_sb, is_stationary_onezero=True)
    res = nl.add(nl.copy(t_ps), nl.copy(s_ps))
    nl.store(out, value=res)
    return out
