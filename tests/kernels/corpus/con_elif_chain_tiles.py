# An if / elif / else chain on the loop variable choosing each band's operation (nki-language.md
# 3.1: Python branches on loop indices). Printed back from the form it stays a chain: the elif was
# printed as `else:` followed by `elif`, which does not parse.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(M // 128):
        rows = nl.load(x[b * 128:(b + 1) * 128, :])
        if b == 0:
            y = nl.exp(rows)
        elif b < 3:
            # the middle bands
            y = nl.multiply(rows, float(b))
        else:
            y = nl.negative(rows)
        nl.store(out[b * 128:(b + 1) * 128, :], value=y)
    return out
