# Bit tricks on int32 tiles as a hashing or masking kernel writes them: `~t` of a tile (nl.invert,
# nki-language.md 7.3 "Bitwise", 7.9 operators), `~` of a Python int constant, `&` / `^` with typed
# numpy scalars, two outputs.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

LOW_MASK = ~0xFF00


@nki.jit
def flip_bits(x):
    n, d = x.shape
    inv = nl.ndarray((n, d), dtype=nl.int32, buffer=nl.shared_hbm)
    mix = nl.ndarray((n, d), dtype=nl.int32, buffer=nl.shared_hbm)
    for r in nl.affine_range(n // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        nt_ = ~t
        nl.store(inv[r * 128:(r + 1) * 128, :], value=nt_)
        m = (nt_ & np.int32(LOW_MASK)) ^ t
        nl.store(mix[r * 128:(r + 1) * 128, :], value=m)
    return inv, mix
