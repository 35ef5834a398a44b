# PE tiling: tile_position and tile_size go together, are multiples of 32 and hold the operands.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b):
    out = nl.ndarray((64, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    sa = nl.load(a)
    sb = nl.load(b)
    ok = nisa.nc_matmul(sa, sb, tile_position=(0, 64), tile_size=(64, 64))
    nl.store(out, value=ok)
    bad = nisa.nc_matmul(sa, sb, tile_position=(0, 48), tile_size=(64, 64))
    return out


kernel(np.ones((64, 64), dtype=np.float32), np.ones((64, 128), dtype=np.float32))
