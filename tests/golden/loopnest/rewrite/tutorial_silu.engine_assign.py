# SiLU as a first-time author writes it after the NKI tutorials: the formula spelled with nl.*
# math in a helper, one [128 x 512] tile per iteration, nl.ds slices, the kernel named after
# what it computes.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def silu_tile(x_tile):
    """x * sigmoid(x), written as x / (1 + exp(-x))."""
    exp_neg = nl.exp(nl.negative(x_tile))
    denom = nisa.tensor_scalar(data=exp_neg, op0=nl.add, operand0=1.0, engine=nisa.gpsimd_engine)
    return nl.divide(x_tile, denom)


@nki.jit
def silu_kernel(x):
    # x: (128, M/128, N), partition dim first.
    n_parts, n_row_tiles, n_cols = x.shape
    TILE_F = 512
    out = nl.ndarray((n_parts, n_row_tiles, n_cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(n_row_tiles):
        for c in nl.affine_range(n_cols // TILE_F):
            x_tile = nl.load(x[:, r, nl.ds(c * TILE_F, TILE_F)])
            y_tile = silu_tile(x_tile)
            nl.store(out[:, r, nl.ds(c * TILE_F, TILE_F)], value=y_tile)
    return out
