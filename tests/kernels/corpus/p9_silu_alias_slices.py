import neuronxcc.nki as nki
import neuronxcc.nki.language as language
import neuronxcc.nki.isa as isa
from neuronxcc.nki.language import par_dim, affine_range, sbuf, shared_hbm

FREE = 512


@nki.jit
def silu_kernel(x):
    """SiLU with a module alias, names imported from nki.language, a (par_dim, F) SBUF tile
    declared once per row block and filled by slice assignments, and the activations written
    into column slices of one result tile."""
    *lead, cols = x.shape
    rows = lead[0]
    out = language.ndarray((rows, cols), dtype=x.dtype, buffer=shared_hbm)
    for r in affine_range(rows // 128):
        tile = language.ndarray((par_dim(128), cols), dtype=language.float32, buffer=sbuf)
        res = language.ndarray((par_dim(128), cols), dtype=language.float32, buffer=sbuf)
        for c in affine_range(cols // FREE):
            tile[:, c * FREE:(c + 1) * FREE] = language.load(x[r * 128:(r + 1) * 128, c * FREE:(c + 1) * FREE])
        for c in affine_range(cols // FREE):
            res[:, c * FREE:(c + 1) * FREE] = isa.activation(op=language.silu, data=tile[:, c * FREE:(c + 1) * FREE])
        language.store(out[r * 128:(r + 1) * 128, :], value=res)
    return out
