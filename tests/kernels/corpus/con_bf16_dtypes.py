# bfloat16 inputs and outputs, as the bf16 tutorials and ladders write them: loads keep bf16,
# the engines compute in fp32 and round once to the output dtype (RNE), a Python float operand
# is weakly typed (fp32), the Tensor Engine multiplies bf16 into an fp32 PSUM tile, and stores
# round to the HBM tensor's dtype.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b, w):
    out_add = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    out_exp = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
    out_mm = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        ta = nl.load(a[i * 128:(i + 1) * 128, :])
        tb = nl.load(b[i * 128:(i + 1) * 128, :])
        s = nl.add(ta, tb)                  # bf16: round(fp32(a) + fp32(b))
        assert s.dtype == nl.bfloat16
        half = nl.multiply(s, 0.5)          # a Python float is fp32: the result is fp32
        assert half.dtype == nl.float32
        nl.store(out_add[i * 128:(i + 1) * 128, :], value=half)
        e = nisa.activation(op=nl.exp, data=s)  # output dtype = data dtype (bf16)
        nl.store(out_exp[i * 128:(i + 1) * 128, :], value=e)
    lhsT = nl.load(a[0:128, 0:128])
    rhs = nl.load(w)
    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    acc += nisa.nc_matmul(lhsT, rhs)
    nl.store(out_mm, value=nl.copy(acc, dtype=nl.bfloat16))
    return out_add, out_exp, out_mm
