import nki
import nki.language as nl

# A row block's transposed input tiles come from a nested comprehension (a list of lists: one list
# of k tiles per row tile); a loop over the row tiles hands one row's list to a helper that takes
# its len() and contracts it with a list of weight tiles, then projects the activated result per
# output block in a plain-range PSUM loop of nl.matmul without transpose_x (a transpose per call),
# accumulating into a list of SBUF accumulators.
P = 128
OUT_BLOCK = 256


def _contract(x_row, w_tiles):
    acc = nl.zeros((P, w_tiles[0].shape[1]), dtype=nl.float32, buffer=nl.psum)
    for k in range(len(x_row)):
        acc += nl.matmul(x_row[k], w_tiles[k], transpose_x=True)
    return acc


@nki.jit
def kernel(x, w, v):
    rows, _, k_tiles, _ = x.shape
    h_sub = w.shape[2] // P
    n_out = v.shape[2] // OUT_BLOCK
    out = nl.ndarray((rows, P, v.shape[2]), dtype=x.dtype, buffer=nl.shared_hbm)
    x_t = [[nl.transpose(nl.load(x[r, :, k, :])) for k in range(k_tiles)] for r in range(rows)]
    w_sb = [nl.load(w[k]) for k in range(k_tiles)]
    v_sb = [nl.load(v[c]) for c in range(h_sub)]
    out_acc = [nl.zeros((P, v.shape[2]), dtype=nl.float32, buffer=nl.sbuf) for _ in range(rows)]
    for r in nl.affine_range(rows):
        hidden = nl.maximum(_contract(x_t[r], w_sb), 0.0)
        hidden_t = nl.ndarray(shape=(128, h_sub, 128), dtype=nl.float32, buffer=nl.sbuf)
        for c in range(h_sub):
            hidden_t[:, c, :] = nl.transpose(x=hidden[:, c * P:(c + 1) * P])
        for ob in range(n_out):
            y = nl.zeros((P, OUT_BLOCK), dtype=nl.float32, buffer=nl.psum)
            for c in range(h_sub):
                y += nl.matmul(hidden_t[:, c, :], v_sb[c][:, ob * OUT_BLOCK:(ob + 1) * OUT_BLOCK], transpose_x=True)
            out_acc[r][:, ob * OUT_BLOCK:(ob + 1) * OUT_BLOCK] = out_acc[r][:, ob * OUT_BLOCK:(ob + 1) * OUT_BLOCK] + y
    for r in nl.affine_range(rows):
        nl.store(out[r], value=out_acc[r])
    return out
