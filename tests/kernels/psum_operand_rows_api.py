# Newer `nki` API, high-level nl surface: a row block's K tiles transposed by a comprehension
# (`nl.transpose` returns them in PSUM) and read by every column block's matmuls as the stationary
# operand, which the Tensor Engine reads from SBUF only: the compiler copies each one before every
# matmul. evacuate_psum copies them to SBUF where they are made (lhs: (2, 128, 2, 128), rhs: (2, 128, 1024)).
import nki
import nki.language as nl


@nki.jit
def kernel(lhs, rhs):
    m_tiles, _, k_tiles, _ = lhs.shape
    N = rhs.shape[2]
    out = nl.ndarray((m_tiles, 128, N), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(m_tiles):
        lhs_t = [nl.transpose(nl.load(lhs[m, :, k, :])) for k in range(k_tiles)]
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_tiles):
                rhs_tile = nl.load(rhs[k, :, n * 512:(n + 1) * 512])
                acc += nl.matmul(lhs_t[k], rhs_tile, transpose_x=True)
            nl.store(out[m, :, n * 512:(n + 1) * 512], value=acc)
    return out
