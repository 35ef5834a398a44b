import math
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

DEGREE = 7


@nki.jit
def sin_taylor(x):
    # sin(x) by its Taylor polynomial, evaluated with Horner's rule in x^2. The coefficients
    # are Python floats computed at trace time, and nl.static_range unrolls the loop so each
    # iteration multiplies by the tile and adds a different constant.
    coeffs = [(-1.0) ** k / math.factorial(2 * k + 1) for k in range(DEGREE)]
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        t2 = nl.multiply(t, t)
        acc = nl.full((128, N), coeffs[-1], dtype=nl.float32)
        for k in nl.static_range(DEGREE - 2, -1, -1):
            acc = nl.add(nl.multiply(acc, t2), coeffs[k])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(acc, t))
    return out
