# Bundled style: exp of a row block processed in column chunks whose width is a parameter with a
# default the caller leaves (x: (128, 2048)). free_size offers the default doubled and halved
# (`chunk=512` -> 1024 / 256 / 128); the kernel is written for any width dividing the row, and every use
# of it (the trip, the slices) follows the edited default.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, chunk=512):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(cols // chunk):
        tile = nl.load(x[:, j * chunk:(j + 1) * chunk])
        nl.store(out[:, j * chunk:(j + 1) * chunk], value=nl.exp(tile))
    return out
