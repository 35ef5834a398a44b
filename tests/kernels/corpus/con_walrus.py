# Assignment expressions (':=') wherever Python allows them: inside call arguments and
# subscripts, in loop headers, `if`/`while` conditions, comprehensions (binding in the enclosing
# function), and lambdas' enclosing scope.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    rows, cols = x.shape
    for i in nl.affine_range((n_tiles := rows // (tile := 128))):
        t = nl.load(x[(base := i * tile):base + tile, 0:cols])
        y = nisa.tensor_scalar(data=t, op0=nl.multiply, operand0=(scale := 2.0), op1=nl.add, operand1=scale)
        nl.store(out[base:base + tile, 0:(width := cols)], value=y)
    assert n_tiles * tile == rows and width == cols
    sizes = [last for d in x.shape if (last := d) > 0]
    assert last == cols and sizes == [rows, cols]
    k = 0
    while (k := k + 1) < 3:
        pass
    assert k == 3
    if (half := cols // 2) > 0:
        assert half * 2 == cols
    return out
