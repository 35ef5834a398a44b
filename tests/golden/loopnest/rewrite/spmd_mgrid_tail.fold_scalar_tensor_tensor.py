# An element-wise kernel over a ragged 2-D tensor launched on a 2-D SPMD grid computed on the host
# with math.ceil: each program takes one (128, 512) block from nl.program_id(0) / (1), indexes it
# with the attribute form of nl.mgrid (`ix.p`, `ix.x`), and guards both ragged edges with one
# compound mask; tile operators (`*`, `+`, unary `-`) and nl.maximum with a scalar.
import math
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def gated_relu(x, y):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    TP, TF = 128, 512
    r0 = nl.program_id(0) * TP
    c0 = nl.program_id(1) * TF
    ix = nl.mgrid[0:TP, 0:TF]
    inb = (r0 + ix.p < M) & (c0 + ix.x < N)
    a = nl.load(x[r0 + ix.p, c0 + ix.x], mask=inb)
    b = nl.load(y[r0 + ix.p, c0 + ix.x], mask=inb)
    r = nisa.scalar_tensor_tensor(data=a, op0=nl.maximum, operand0=0.0, op1=nl.multiply, operand1=b) + (-a * 0.125)
    nl.store(out[r0 + ix.p, c0 + ix.x], value=r, mask=inb)
    return out


def kernel(x, y):
    M, N = x.shape
    grid = (math.ceil(M / 128), math.ceil(N / 512))
    return gated_relu[grid](x, y)
