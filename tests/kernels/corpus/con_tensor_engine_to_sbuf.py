# Tensor Engine results where the compiler inserts the PSUM->SBUF copy: a transpose and a
# matmul assigned straight into SBUF tiles, and a PSUM transpose result passed as the
# stationary (and moving) operand of nc_matmul.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b, c):
    out1 = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    out2 = nl.ndarray((128, 256), dtype=a.dtype, buffer=nl.shared_hbm)
    out3 = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    a_sb = nl.load(a)
    b_sb = nl.load(b)
    c_sb = nl.load(c)
    # transpose written into SBUF
    at_sb = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
    at_sb[...] = nisa.nc_transpose(a_sb)
    nl.store(out1, value=at_sb)
    # a PSUM transpose as the stationary operand: out2 = (b.T).T @ c = b @ c
    bt_psum = nisa.nc_transpose(b_sb)
    mm_sb = nl.ndarray((128, 256), dtype=a.dtype, buffer=nl.sbuf)
    mm_sb[...] = nisa.nc_matmul(bt_psum, c_sb)
    nl.store(out2, value=mm_sb)
    # PSUM operands on both sides: (a.T).T @ (b.T) = a @ b.T
    res = nisa.nc_matmul(nisa.nc_transpose(a_sb), bt_psum)
    nl.store(out3, value=nl.copy(res))
    return out1, out2, out3
