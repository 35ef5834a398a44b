# A sum of squares whose accumulator starts as None: the first iteration takes the tile, the
# later ones add to it (`total = sq if total is None else total + sq`).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        total = None
        for c in range(cols // 128):
            sq = nl.square(nl.load(x[r * 128:(r + 1) * 128, c * 128:(c + 1) * 128]))
            total = sq if total is None else total + sq
        nl.store(out[r * 128:(r + 1) * 128, :], value=total)
    return out
