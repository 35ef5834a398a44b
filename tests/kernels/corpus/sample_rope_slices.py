# RoPE as the published hand-written rope kernel writes it: a Python `range(0, S, 512)` loop, a
# tuple-of-shape check, a tile view rebound to a fresh load (`sb_cos = sb_coeff[...]` then
# `sb_cos = nl.load(...)`), nl.copy moving a partition slice to partition 0, and positional
# nisa.tensor_tensor(a, b, op).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x_in, cos, sin):
    """Applies the rotation of one frequency to x_in (D, S)."""
    d, seq = x_in.shape
    half_d = d // 2
    assert tuple(cos.shape) == (half_d, seq)
    assert tuple(sin.shape) == (half_d, seq)
    x_out = nl.ndarray((d, seq), dtype=x_in.dtype, buffer=nl.shared_hbm)
    i_lower = nl.arange(half_d)[:, None]
    for off in range(0, seq, 512):
        i_s = off + nl.arange(512)[None, :]
        x_in_sb = nl.load(x_in[nl.arange(d)[:, None], i_s])
        sb_coeff = nl.ndarray((half_d, 1024), dtype=cos.dtype, buffer=nl.sbuf)
        sb_cos = sb_coeff[i_lower, nl.arange(512)[None, :]]
        sb_cos = nl.load(cos[i_lower, i_s])
        sb_sin = nl.load(sin[i_lower, i_s])
        # both tensor_tensor inputs must start at the same partition: copy the upper half down
        sb_e = nl.copy(x_in_sb[i_lower, nl.arange(512)[None, :]])
        sb_o = nl.copy(x_in_sb[half_d + i_lower, nl.arange(512)[None, :]])
        e_cos = nisa.tensor_tensor(sb_e, sb_cos, nl.multiply)
        o_sin = nisa.tensor_tensor(sb_o, sb_sin, nl.multiply)
        low = nisa.tensor_tensor(e_cos, o_sin, nl.subtract)
        e_sin = nisa.tensor_tensor(sb_e, sb_sin, nl.multiply)
        o_cos = nisa.tensor_tensor(sb_o, sb_cos, nl.multiply)
        high = nisa.tensor_tensor(e_sin, o_cos, nl.add)
        nl.store(x_out[i_lower, i_s], low)
        nl.store(x_out[half_d + i_lower, i_s], high)
    return x_out
