import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def _tiles(t, n, rows, *, width=128):
    # the n column blocks of an SBUF tile, as a python list built at trace time
    return [t[0:rows, i * width:(i + 1) * width] for i in range(n)]


@nki.jit
def matmul(a, b):
    """C = A @ B with A given as (M, K): the K blocks of each A row tile collected in a python
    list (a comprehension over range), transposed with nl.transpose, the products summed by
    the builtin sum() over a generator into one PSUM result, and a list of the three column
    tiles of B built by a python for loop with append."""
    M, K = a.shape
    K2, N = b.shape
    assert K == K2 and N % 512 == 0
    nk = K // 128
    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for n0 in nl.affine_range(N // 512):
        b_blocks = []
        for k in range(nk):
            b_blocks.append(nl.load(b[k * 128:(k + 1) * 128, n0 * 512:(n0 + 1) * 512]))
        for m0 in nl.affine_range(M // 128):
            a_tile = nl.load(a[m0 * 128:(m0 + 1) * 128, :])
            a_T = [nl.copy(nl.transpose(blk)) for blk in _tiles(a_tile, nk, 128)]
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            acc += sum(nl.matmul(aT, bb, transpose_x=True) for aT, bb in zip(a_T, b_blocks))
            nl.store(c[m0 * 128:(m0 + 1) * 128, n0 * 512:(n0 + 1) * 512], value=acc)
    return c
