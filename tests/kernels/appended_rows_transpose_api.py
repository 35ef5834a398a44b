import nki
import nki.language as nl

# Python lists of tiles in the newer API (nki): an nl.affine_range loop over the row tiles appends
# one list per row tile, a comprehension over nl.affine_range of the row's input blocks copied
# and transposed on chip (`rows_t.append([nl.copy(nl.transpose(nl.load(...))) for k in ...])`);
# the kernel itself then reads block `rows_t[r][k]` in a contraction loop per row tile.
P = 128


@nki.jit
def kernel(x, w):
    rows, _, k_tiles, _ = x.shape
    out = nl.ndarray((rows, P, w.shape[2]), dtype=x.dtype, buffer=nl.shared_hbm)
    rows_t = []
    for r in nl.affine_range(rows):
        rows_t.append([nl.copy(nl.transpose(nl.load(x[r, :, k, :]))) for k in nl.affine_range(k_tiles)])
    for r in nl.affine_range(rows):
        acc = nl.zeros((P, w.shape[2]), dtype=nl.float32, buffer=nl.psum)
        for k in range(k_tiles):
            acc += nl.matmul(rows_t[r][k], nl.load(w[k]), transpose_x=True)
        nl.store(out[r], value=nl.copy(acc))
    return out
