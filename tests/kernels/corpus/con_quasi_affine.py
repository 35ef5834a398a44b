# Floor division and modulo of nl.arange index expressions by constants (quasi-affine indices):
# a (128, 512) tile gathered from a (128, 4, 128) tensor with `f // 128` and `f % 128`, a
# partition index split over two HBM dims with `p // 2` and `p % 2`, nested `(f // 8) % 4`,
# and a store scattering through the same kind of index.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b, c):
    out_a = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    out_b = nl.ndarray((128, 64), dtype=b.dtype, buffer=nl.shared_hbm)
    out_c = nl.ndarray((16, 4, 8), dtype=c.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    # a: (128, 4, 128) -> (128, 512)
    ta = nl.load(a[i_p, i_f // 128, i_f % 128])
    nl.store(out_a[i_p, i_f], value=ta)
    # b: (64, 2, 64): partitions p -> (p // 2, p % 2)
    i_g = nl.arange(64)[None, :]
    tb = nl.load(b[i_p // 2, i_p % 2, i_g])
    nl.store(out_b[i_p, i_g], value=nl.multiply(tb, 3.0))
    # c: (16, 32) -> scattered into (16, 4, 8) with nested quasi-affine indices
    i_q = nl.arange(16)[:, None]
    i_h = nl.arange(32)[None, :]
    tc = nl.load(c[i_q, i_h])
    nl.store(out_c[i_q, (i_h // 8) % 4, i_h % 8], value=tc)
    return out_a, out_b, out_c
