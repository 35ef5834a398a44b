# nki API: each 128-row block of x (R, 128, K) is loaded as column halves, and every half's 128-wide
# chunks are transposed by one flattened comprehension of two for-clauses (`[... for h in range(2)
# for c in range(chunks)]`, one list of 2 * chunks tiles); then one uninterrupted run of matmuls
# over that list, `for t in range(len(x_t))`, indexes it by t. The comprehension lifts as its loop
# nest and the matmul loop as one loop (lift_flat_rolled.cpp). x (2, 128, 512), w (512, 256).
import nki
import nki.language as nl

HALF = 256
CHUNK = 128


@nki.jit
def kernel(x, w):
    rows, _, K = x.shape
    _, N = w.shape
    chunks = HALF // CHUNK
    out = nl.ndarray((rows, 128, N), dtype=x.dtype, buffer=nl.shared_hbm)
    w_tiles = [nl.load(w[t * CHUNK:(t + 1) * CHUNK, :]) for t in range(K // CHUNK)]
    for r in nl.affine_range(rows):
        halves = [nl.load(x[r, :, h * HALF:(h + 1) * HALF]) for h in range(K // HALF)]
        # keys onto partitions, chunk by chunk of each half
        x_t = [nl.copy(nl.transpose(halves[h][:, c * CHUNK:(c + 1) * CHUNK]))
               for h in range(K // HALF) for c in range(chunks)]
        acc = nl.zeros((128, N), dtype=nl.float32, buffer=nl.psum)
        for t in range(len(x_t)):
            acc += nl.matmul(x_t[t], w_tiles[t], transpose_x=True)
        nl.store(out[r, :, :], value=nl.copy(acc, dtype=x.dtype))
    return out
