import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

# Pallas style (issue 13): a grid driver that recurses once per grid axis, `_for_grid(grid, body,
# _idx + (g,))`, runs a body closure which drives an inner grid of its own, whose body drives a
# third: the helper calls nest 3 + 1 + 3 + 1 + 2 + 1 deep at trace time (the form's lift refused
# more than 8 before, session 45). Row sums of exp(x) in 512-column steps, then x scaled by them. x (256, 1024).
BM = 128
BN = 512


def _for_grid(grid, body, _idx=()):
    if len(_idx) == len(grid):
        body(*_idx)
        return
    for g in nl.affine_range(grid[len(_idx)]):
        _for_grid(grid, body, _idx + (g,))


@nki.jit
def kernel(x):
    R, C = x.shape
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)

    def row_body(b, i):
        total = nl.zeros((BM, 1), dtype=nl.float32, buffer=nl.sbuf)

        def col_body(j, u):
            def half_body(k):
                c0 = (2 * j + k) * (BN // 2)
                xt = nl.load(x[i * BM:(i + 1) * BM, c0:c0 + BN // 2])
                e = nisa.activation(op=nl.exp, data=xt)
                total[...] = nl.add(total, nl.sum(e, axis=[1], keepdims=True))

            _for_grid((2,), half_body)

        def scale_body(j):
            xt = nl.load(x[i * BM:(i + 1) * BM, j * BN:(j + 1) * BN])
            nl.store(out[i * BM:(i + 1) * BM, j * BN:(j + 1) * BN], value=nl.multiply(xt, total))

        _for_grid((C // BN, 1), col_body)
        _for_grid((C // BN,), scale_body)

    _for_grid((1, R // BM), row_body)
    return out
