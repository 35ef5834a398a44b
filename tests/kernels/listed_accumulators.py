# Bundled style: two row tiles' fp32 sums of products kept in a Python list of tiles made by a
# comprehension (h, c: (S, 256, 512); out = sum over s of h[s] * c[s]). Each item is a tile of its
# own: psum_accumulate moves the list to PSUM (one bank per item), the comprehension's buffer
# keyword changed, and must keep the result.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(h, c):
    states, rows, cols = h.shape
    out = nl.ndarray((rows, cols), dtype=h.dtype, buffer=nl.shared_hbm)
    accs = [nl.zeros((128, cols), dtype=nl.float32, buffer=nl.sbuf) for _ in range(rows // 128)]
    for s in nl.sequential_range(states):
        for r in nl.affine_range(rows // 128):
            h_tile = nl.load(h[s, r * 128:(r + 1) * 128, :])
            c_tile = nl.load(c[s, r * 128:(r + 1) * 128, :])
            accs[r][...] = nl.add(accs[r], nl.multiply(h_tile, c_tile))
    for r in nl.affine_range(rows // 128):
        nl.store(out[r * 128:(r + 1) * 128, :], value=accs[r])
    return out
