# Bundled style: exp of a row block processed in column chunks whose width is a module constant
# (x: (128, 2048)). free_size offers the constant doubled and halved (`CHUNK = 512` -> 1024 / 256 / 128):
# the kernel is written for any width dividing the row, and every use of it (the trip, the slices)
# follows the edited constant. `SPARE` sizes nothing and `STAGES` is no power of two: no site.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

CHUNK = 512
SPARE = 1024
STAGES = 3


@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(cols // CHUNK):
        tile = nl.load(x[:, j * CHUNK:(j + 1) * CHUNK])
        for _ in range(STAGES - 2):
            tile = nl.exp(tile)
        nl.store(out[:, j * CHUNK:(j + 1) * CHUNK], value=tile)
    return out
