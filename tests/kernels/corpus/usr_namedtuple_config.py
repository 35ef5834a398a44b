# A library author's kernel configured by named tuples: `typing.NamedTuple` classes of tile sizes
# and activation constants with defaults and a method, `_replace` to derive a narrower config,
# fields read by attribute (the kernel's tile sizes come from the config, so the loops and slices
# follow it). `collections.namedtuple` runs too (tests/golden/nki/interp/named_tuples.py).
from typing import NamedTuple

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


class TileConfig(NamedTuple):
    rows: int = nl.tile_size.pmax
    cols: int = 1024

    def blocks(self, m: int, n: int):
        return (m + self.rows - 1) // self.rows, n // self.cols


class Activation(NamedTuple):
    scale: float
    bias: float = 0.0

DEFAULT = TileConfig()


def _scaled_silu(tile, act: Activation):
    s = nisa.activation(op=nl.silu, data=tile, bias=None, scale=1.0)
    return nl.multiply(s, act.scale) + act.bias


@nki.jit
def kernel(x, cfg: TileConfig = DEFAULT._replace(cols=512)):
    M, N = x.shape
    rows, cols = cfg.rows, cfg.cols
    n_row, n_col = cfg.blocks(M, N)
    act = Activation(scale=0.5)
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n_row):
        r = min(rows, M - i * rows)
        for j in nl.affine_range(n_col):
            t = nl.load(x[i * rows:i * rows + r, j * cols:(j + 1) * cols])
            nl.store(out[i * rows:i * rows + r, j * cols:(j + 1) * cols], value=_scaled_silu(t, act))
    return out
