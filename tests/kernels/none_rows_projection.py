import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

# A two-stage projection in the legacy API (neuronxcc.nki) in a researcher's style: a list of lists
# preallocated with None (`h_t = [[None] * B for _ in range(T)]`) is filled by item assignment with
# transposed 128-column blocks of a per-row-tile product, chunk by chunk, then a second loop nest
# contracts each row tile's blocks with the matching weight blocks through
# nl.matmul(..., transpose_x=True).
P = 128


@nki.jit
def kernel(x, w_in, w_out):
    row_tiles, _, d_model = x.shape
    chunks, _, chunk_cols = w_in.shape
    subs = chunk_cols // P
    blocks = chunks * subs
    out_cols = w_out.shape[2]
    out = nl.ndarray((row_tiles, P, out_cols), dtype=x.dtype, buffer=nl.shared_hbm)
    h_t = [[None] * blocks for _ in range(row_tiles)]
    for c in range(chunks):
        w_chunk = nl.load(w_in[c])
        for r in range(row_tiles):
            x_tile = nl.load(x[r])
            h = nl.matmul(x_tile, w_chunk)
            h = nl.multiply(h, nl.sigmoid(h))
            for s in range(subs):
                b = c * subs + s
                h_t[r][b] = nl.copy(nl.transpose(h[:, s * P:(s + 1) * P]))
    for r in range(row_tiles):
        acc = nl.zeros((P, out_cols), dtype=nl.float32, buffer=nl.psum)
        for b in range(blocks):
            acc += nl.matmul(h_t[r][b], nl.load(w_out[b]), transpose_x=True)
        nl.store(out[r], value=nl.copy(acc, dtype=x.dtype))
    return out
