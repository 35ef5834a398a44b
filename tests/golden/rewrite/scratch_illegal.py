# inputs: 4x128x256 2x128x256
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    # Legality traps for forward_scratch and hoist_load_loop (never run): scratch tiles read back
    # in reverse order, a scratch read back by a second consumer, a consumer that reads what the
    # producer leaves in a name, a tile overwritten by every inner iteration, and fill loops that
    # depend on the enclosing loop or are overwritten in it.
    out = nl.ndarray((4, 128, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    rev = nl.ndarray((4, 128, 256), dtype=x.dtype, buffer=nl.hbm)
    twice = nl.ndarray((4, 128, 256), dtype=x.dtype, buffer=nl.hbm)
    last = nl.ndarray((4, 128, 256), dtype=x.dtype, buffer=nl.hbm)
    over = nl.ndarray((4, 128, 128), dtype=x.dtype, buffer=nl.hbm)
    for i in nl.affine_range(4):
        t = nl.load(x[i])
        nl.store(rev[i], value=t)
    for i in nl.affine_range(4):
        u = nl.load(rev[3 - i])
        nl.store(out[i], value=u)
    for i in nl.affine_range(4):
        t = nl.load(x[i])
        nl.store(twice[i], value=t)
    for i in nl.affine_range(4):
        u = nl.load(twice[i])
        v = nl.load(twice[i])
        nl.store(out[i], value=nl.add(u, v))
    for i in nl.affine_range(4):
        s = nl.load(x[i])
        nl.store(last[i], value=s)
    for i in nl.affine_range(4):
        u = nl.load(last[i])
        nl.store(out[i], value=nl.add(u, s))
    for i in nl.affine_range(4):
        for c in nl.affine_range(2):
            t = nl.load(x[i, :, c * 128:(c + 1) * 128])
            nl.store(over[i], value=t)
    for i in nl.affine_range(4):
        for c in nl.affine_range(2):
            u = nl.load(over[i])
            nl.store(out[i, :, c * 128:(c + 1) * 128], value=u)
    for i in nl.affine_range(2):
        w_tiles = nl.ndarray((2, nl.par_dim(128), 256), dtype=w.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(2):
            w_tiles[k] = nl.load(w[(k + i) % 2])
        nl.store(out[i], value=w_tiles[0])
    for i in nl.affine_range(2):
        v_tiles = nl.ndarray((2, nl.par_dim(128), 256), dtype=w.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(2):
            v_tiles[k] = nl.load(w[k])
        v_tiles[0] = nl.load(x[i])
        nl.store(out[i], value=v_tiles[0])
    return out
