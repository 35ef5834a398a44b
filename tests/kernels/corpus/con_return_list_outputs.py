# Two outputs returned as a list (`return [a, b]`): the newer front end takes tuples and lists alike
# as kernel values (nki-language.md 12.1); the harness gets them as it gets a tuple.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    M, N = x.shape
    a = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    b = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(M // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        nl.store(a[r * 128:(r + 1) * 128, :], value=nl.exp(t))
        nl.store(b[r * 128:(r + 1) * 128, :], value=nl.negative(t))
    return [a, b]
