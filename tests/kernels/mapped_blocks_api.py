import nki
import nki.language as nl

# A list of column blocks made by `map` over a lambda (issue 13), then paired by index in a loop:
# the lambdas' loads are the list's items. x (128, 512): out (128, 256) = block 2j times block 2j+1.
B = 128


@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols // 2), dtype=x.dtype, buffer=nl.shared_hbm)
    parts = list(map(lambda j: nl.load(x[:, j * B:(j + 1) * B]), range(cols // B)))
    for j in range(cols // (2 * B)):
        prod = nl.multiply(parts[2 * j], parts[2 * j + 1])
        nl.store(out[:, j * B:(j + 1) * B], value=prod)
    return out
