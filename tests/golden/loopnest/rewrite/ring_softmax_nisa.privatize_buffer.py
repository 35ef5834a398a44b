# Legacy nisa style, an ISA-minded author's hand multi-buffering: the row softmax of each 128-row tile
# staged in a ring of NBUF slots declared once outside the row loop, each iteration filling its slot
# `ring[r % NBUF]` chunk by chunk and then reading it whole. Nothing flows between iterations through
# the ring (each writes its slot before reading it), but iterations r and r + NBUF share a slot, so
# the sequential row loop cannot be written affine_range as it stands; privatize_buffer declares the
# ring inside the loop, one tile per iteration, without the slot dim.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

P = 128
F = 512
NBUF = 2


@nki.jit
def kernel(x):
    rows, cols = x.shape
    n_rt = rows // P
    n_chunk = cols // F
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.sequential_range(n_rt):
        ring = nl.ndarray((nl.par_dim(P), cols), dtype=nl.float32, buffer=nl.sbuf)
        for j in nl.affine_range(n_chunk):
            xt = nl.load(x[r * P:(r + 1) * P, j * F:(j + 1) * F])
            ring[:, j * F:(j + 1) * F] = nisa.activation(op=nl.exp, data=xt)
        total = nisa.tensor_reduce(nl.add, data=ring, axis=[1], keepdims=True)
        inv = nisa.reciprocal(total)
        y = nisa.tensor_scalar(ring, op0=nl.multiply, operand0=inv)
        nl.store(out[r * P:(r + 1) * P, :], value=y)
    return out
