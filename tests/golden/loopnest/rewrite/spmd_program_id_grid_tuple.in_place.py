"""
Row-block scaling as a samples-style SPMD kernel: the launch grid is a tuple computed by the
caller (`grid = (rows // 128, cols // 256)`, `kernel[grid](...)`); each program finds its block
with nl.program_id(0) / nl.program_id(1), checks nl.num_programs(0) and nl.program_ndim(), and
scales its block by (1 + its program ids) with tensor_scalar. Output allocated by the caller and
passed in (baremetal-style out argument), nothing returned by the device kernel.
"""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def scale_blocks_kernel(x, out):
    pid_r = nl.program_id(0)
    pid_c = nl.program_id(axis=1)
    assert nl.program_ndim() == 2
    n_r = nl.num_programs(0)
    rows = x.shape[0] // n_r
    r0 = pid_r * rows
    c0 = pid_c * 256
    t = nl.load(x[r0:r0 + rows, c0:c0 + 256])
    factor = 1.0 + pid_r + 0.5 * pid_c
    t[...] = nisa.tensor_scalar(data=t, op0=nl.multiply, operand0=factor)
    nl.store(out[r0:r0 + rows, c0:c0 + 256], value=t)


def kernel(x):
    out = np.zeros(x.shape, dtype=x.dtype)
    grid = (x.shape[0] // 128, x.shape[1] // 256)
    scale_blocks_kernel[grid](x, out)
    return out
