# inputs: 128x512
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a):
    # Legality traps (never run): a loop-dependent load (not invariant), a consumer loop that reads what the
    # first loop stores at other iterations (not fusable), a range that depends on the outer
    # loop (not interchangeable).
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    buf = nl.ndarray((4, nl.par_dim(128), 128), dtype=a.dtype, buffer=nl.sbuf)
    for i in nl.affine_range(4):
        tile = nl.load(a[:, i * 128:(i + 1) * 128])
        buf[i] = nl.copy(tile)
    for i in nl.affine_range(4):
        t = nl.add(buf[i], buf[3 - i])
        nl.store(out[:, i * 128:(i + 1) * 128], value=t)
    for r in nl.affine_range(2):
        for c in nl.affine_range(r + 1):
            pass
    return out
