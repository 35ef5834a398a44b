import nki
import nki.language as nl

# Rows attend over a few column chunks (a researcher's high-level style): the chunk products are a
# list built by a comprehension, normalized by a helper looping over its list argument, turned
# key-major by a second comprehension, then reduced by a Python `range` loop unrolled while tracing.
TILE = 128
CHUNK = 256


def _exp_normalize(parts):
    """exp of every chunk, divided by the row's total over all chunks."""
    ex = [nl.exp(p) for p in parts]
    total = nl.sum(ex[0], axis=1, keepdims=True)
    for e in ex[1:]:
        total = total + nl.sum(e, axis=1, keepdims=True)
    inv = nl.reciprocal(total)
    return [e * inv for e in ex]


@nki.jit
def kernel(x, w, v):
    # x: (R, D) rows; w: (D, C) columns; v: (C, E)
    R, D = x.shape
    C = w.shape[1]
    E = v.shape[1]
    n_chunks = C // CHUNK
    n_sub = C // TILE

    out = nl.ndarray((R, E), dtype=x.dtype, buffer=nl.shared_hbm)
    w_sb = nl.load(w)
    v_parts = [nl.load(v[t * TILE:(t + 1) * TILE, :]) for t in range(n_sub)]
    for r in nl.affine_range(R // TILE):
        x_t = nl.transpose(nl.load(x[r * TILE:(r + 1) * TILE, :]))
        parts = [nl.matmul(x_t, w_sb[:, c * CHUNK:(c + 1) * CHUNK], transpose_x=True) for c in range(n_chunks)]
        weights = _exp_normalize(parts)
        weights_t = [nl.transpose(weights[c][:, s * TILE:(s + 1) * TILE])
                     for c in range(n_chunks) for s in range(CHUNK // TILE)]
        acc = nl.zeros((TILE, E), dtype=nl.float32, buffer=nl.psum)
        for t in range(n_sub):
            acc += nl.matmul(weights_t[t], v_parts[t], transpose_x=True)
        nl.store(out[r * TILE:(r + 1) * TILE, :], value=acc)
    return out
