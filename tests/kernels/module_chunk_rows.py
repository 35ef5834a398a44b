# Bundled style with a helper: exp of a row block processed in column chunks whose width is a
# module constant the kernel passes to its implementation (x: (128, 2048)). free_size offers the
# constant doubled, halved and quartered (`CHUNK = 512` -> 1024 / 256 / 128): the implementation is
# written for any width dividing the row, and every use of it (the trip, the slices) follows the
# edited constant. `SPARE` sizes nothing and `STAGES` is no power of two: no site.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

CHUNK = 512
SPARE = 1024
STAGES = 3


def exp_rows(x, out, chunk, stages):
    rows, cols = x.shape
    for j in nl.affine_range(cols // chunk):
        tile = nl.load(x[:, j * chunk:(j + 1) * chunk])
        for _ in range(stages - 2):
            tile = nl.exp(tile)
        nl.store(out[:, j * chunk:(j + 1) * chunk], value=tile)


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    exp_rows(x, out, CHUNK, STAGES)
    return out
