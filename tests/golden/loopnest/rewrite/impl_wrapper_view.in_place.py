# x (200, 512), s (200,).
# The library shape of impl_wrapper_rows.py with an HBM view made in the implementation
# (`s_col = s.reshape((M, 1))`, a per-row shift read as a column): opened, the view's statement
# prints the reshape it is, not its own name (`s_col = s_col`, a kernel that did not lift).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, s):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    s_col = s.reshape((200, 1))
    for r in nl.affine_range(2):
        t = nl.load(x[128*r + nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=(128*r - 200 + nl.arange(128)[:, None] < 0))
        c = nl.load(s_col[128*r + nl.arange(128)[:, None], nl.arange(1)[None, :]], mask=(128*r - 200 + nl.arange(128)[:, None] < 0))
        t[...] = nl.add(t, c, mask=(128*r - 200 + nl.arange(128)[:, None] < 0))
        t[...] = nl.multiply(t, 0.5, mask=(128*r - 200 + nl.arange(128)[:, None] < 0))
        t[...] = nl.exp(t, mask=(128*r - 200 + nl.arange(128)[:, None] < 0))
        nl.store(out[128*r + nl.arange(128)[:, None], nl.arange(512)[None, :]], value=t, mask=(128*r - 200 + nl.arange(128)[:, None] < 0))
    return out
