import nki
import nki.language as nl

# Each row group's tiles come from a nested comprehension (a list of lists of computed tiles); a
# loop over the groups hands one group's list to a helper that reduces it, then projects the sum.
P = 128
OUT_COLS = 256


def _relu_of_sum(parts):
    total = nl.copy(parts[0])
    for j in range(1, len(parts)):
        total = nl.add(total, parts[j])
    return nl.maximum(total, 0.0)


@nki.jit
def kernel(a, w):
    groups, parts, _, _ = a.shape
    n_out = w.shape[1] // OUT_COLS
    out = nl.ndarray((groups, P, w.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    w_sb = nl.load(w)
    scaled = [[nl.multiply(nl.load(a[g, c]), 0.5) for c in range(parts)] for g in range(groups)]
    for g in nl.affine_range(groups):
        h = _relu_of_sum(scaled[g])
        for j in range(n_out):
            y = nl.matmul(h, w_sb[:, j * OUT_COLS:(j + 1) * OUT_COLS])
            nl.store(out[g, :, j * OUT_COLS:(j + 1) * OUT_COLS], value=y)
    return out
