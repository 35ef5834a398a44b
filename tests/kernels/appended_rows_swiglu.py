import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

# A SwiGLU projection in the legacy API (neuronxcc.nki) over Python lists of tiles: per group of
# row tiles, a plain-range loop appends one list per row tile, a comprehension of the row's
# transposed input blocks (`x_t.append([nl.load_transpose2d(...) for k in range(k_tiles)])`); the
# gate and up weights are lists of blocks; a second loop over the row tiles hands the row's list
# to a helper contracting it block by block with a weight list.
P = 128


def _project(x_row, w_tiles):
    acc = nl.zeros((P, w_tiles[0].shape[1]), dtype=nl.float32, buffer=nl.psum)
    for k in range(len(x_row)):
        acc += nl.matmul(x_row[k], w_tiles[k], transpose_x=True)
    return acc


@nki.jit
def kernel(x, w_gate, w_up):
    groups, rows, _, k_tiles, _ = x.shape
    out = nl.ndarray((groups, rows, P, w_gate.shape[2]), dtype=x.dtype, buffer=nl.shared_hbm)
    for g in nl.affine_range(groups):
        x_t = []
        for r in range(rows):
            x_t.append([nl.load_transpose2d(x[g, r, :, k, :]) for k in range(k_tiles)])
        gate_w = [nl.load(w_gate[k]) for k in range(k_tiles)]
        up_w = [nl.load(w_up[k]) for k in range(k_tiles)]
        for r in range(rows):
            gate = _project(x_t[r], gate_w)
            up = _project(x_t[r], up_w)
            hidden = nl.multiply(nl.multiply(gate, nl.sigmoid(gate)), up)
            nl.store(out[g, r], value=hidden)
    return out
