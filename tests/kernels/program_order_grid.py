# Index-grid legacy style, the directive imported by name and put below `@nki.jit` with a comment,
# the row tiles addressed through an nl.mgrid: the same program as program_order_rows.py.
from neuronxcc import nki
import neuronxcc.nki.language as nl
from neuronxcc.nki.compiler import skip_middle_end_transformations

ROWS = 128


@nki.jit
@skip_middle_end_transformations  # program order: easier to read the profile
def kernel(x, y):
    R, C = x.shape
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:ROWS, 0:C]
    for r in nl.affine_range(R // ROWS):
        xt = nl.load(x[r * ROWS + i_p, i_f])
        yt = nl.load(y[r * ROWS + i_p, i_f])
        z = nl.multiply(nl.exp(xt), yt)
        nl.store(out[r * ROWS + i_p, i_f], value=z)
    return out
