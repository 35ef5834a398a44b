# Tensor Engine results where the Neuron compiler inserts the PSUM->SBUF copies: a transpose
# written into an SBUF tile, a matmul accumulated (+=) into SBUF, and a PSUM transpose result
# used as the stationary operand. The trace keeps each instruction as written (SBUF output,
# PSUM input); the compiler stage (src/lower, psum_copies) adds the copies.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

INPUT_SHAPES = [(128, 128), (128, 512)]


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.shared_hbm)
    a_sb = nl.load(a)
    b_sb = nl.load(b)
    at_sb = nl.ndarray((128, 128), dtype=np.float32, buffer=nl.sbuf)
    at_sb[...] = nisa.nc_transpose(a_sb)
    acc = nl.zeros((128, 512), dtype=np.float32, buffer=nl.sbuf)
    acc += nisa.nc_matmul(at_sb, b_sb)
    at_psum = nisa.nc_transpose(a_sb)
    acc[...] += nisa.nc_matmul(at_psum, b_sb)
    nl.store(out, value=acc)
    return out
