# x (200, 512), s (200,).
# The library shape of impl_wrapper_rows.py with an HBM view made in the implementation
# (`s_col = s.reshape((M, 1))`, a per-row shift read as a column): opened, the view's statement
# prints the reshape it is, not its own name (`s_col = s_col`, a kernel that did not lift).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def _shifted_inverse_impl(x, s, out, rows_per_tile):
    M, N = x.shape
    s_col = s.reshape((M, 1))
    i_p = nl.arange(rows_per_tile)[:, None]
    i_f = nl.arange(N)[None, :]
    i_one = nl.arange(1)[None, :]
    for r in nl.affine_range((M + rows_per_tile - 1) // rows_per_tile):
        rows = r * rows_per_tile + i_p
        ok = rows < M
        t = nl.load(x[rows, i_f], mask=ok)
        c = nl.load(s_col[rows, i_one], mask=ok)
        u = nl.multiply(nl.add(t, c, mask=ok), 0.5, mask=ok)
        nl.store(out[rows, i_f], value=nl.exp(u, mask=ok), mask=ok)


@nki.jit
def kernel(x, s):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    _shifted_inverse_impl(x, s, out, nl.tile_size.pmax)
    return out
