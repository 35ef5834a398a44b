# A three-level flattened loop in the legacy index-grid style: batch, row block and column block
# walked by one loop (`t // (R * C)`, `(t // C) % R`, `t % C`), the column block's bias row loaded
# in every iteration although it depends on the column block alone.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, bias):
    B, M, N = x.shape
    out = nl.ndarray((B, M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    R = M // 128
    C = N // 128
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(128)[None, :]
    for t in nl.affine_range(B * R * C):
        b = t // (R * C)
        r = (t // C) % R
        c = t % C
        xt = nl.load(x[b, r * 128 + i_p, c * 128 + i_f])
        bt = nl.load(bias[i_p, c * 128 + i_f])
        y = nl.add(xt, bt)
        z = nl.maximum(y, 0.0)
        nl.store(out[b, r * 128 + i_p, c * 128 + i_f], value=z)
    return out
