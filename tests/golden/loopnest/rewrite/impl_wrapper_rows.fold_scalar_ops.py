# x (200, 512).
# A library kernel's shape: the @nki.jit entry point checks its input and calls a private
# implementation that takes the tile sizes, with a named mask (`ok`) for the ragged last row tile
# on every call. The whole kernel is that one top-level call: opened (helpers=open), its body takes
# the moves, 1 / (x + shift) folding into one tensor_scalar under the same mask.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x):
    assert len(x.shape) == 2
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(2):
        t = nl.load(x[128*r + nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=(128*r - 200 + nl.arange(128)[:, None] < 0))
        v = nisa.tensor_scalar(data=t, op0=nl.add, operand0=3.0, op1=nl.reciprocal, operand1=1.0, mask=(128*r - 200 + nl.arange(128)[:, None] < 0))
        nl.store(out[128*r + nl.arange(128)[:, None], nl.arange(512)[None, :]], value=v, mask=(128*r - 200 + nl.arange(128)[:, None] < 0))
    return out
