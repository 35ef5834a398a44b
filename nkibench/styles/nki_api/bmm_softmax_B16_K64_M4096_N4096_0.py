import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # softmax(lhs @ rhs) over the last axis, per batch in two loop nests: the first computes the
    # score rows and their row maxima, the second exponentiates, normalises and stores. All the
    # score rows of a batch are produced before any is consumed; they are kept as a list of
    # [128 x N] tiles (one per row tile), which the compiler may spill.
    batch, m_size, k_size = lhs.shape
    _, _, n_size = rhs.shape
    m_tiles = m_size // 128
    n_chunks = n_size // 512
    out = nl.ndarray((batch, m_tiles, 128, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(batch):
        rhs_tile = nl.ndarray((k_size, n_size), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rhs_tile, src=rhs[b])
        scores = []
        neg_max = nl.ndarray((128, m_tiles), dtype=nl.float32, buffer=nl.sbuf)
        for m in nl.affine_range(m_tiles):
            lhs_tile = nl.ndarray((128, k_size), dtype=lhs.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=lhs_tile, src=lhs[b, m * 128:(m + 1) * 128, :])
            lhs_t_psum = nl.ndarray((k_size, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=lhs_t_psum, data=lhs_tile)
            lhs_t = nl.ndarray((k_size, 128), dtype=lhs.dtype, buffer=nl.sbuf)
            nisa.activation(dst=lhs_t, op=nl.copy, data=lhs_t_psum)
            row = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.sbuf)
            chunk_max = nl.ndarray((128, n_chunks), dtype=nl.float32, buffer=nl.sbuf)
            for n in nl.affine_range(n_chunks):
                acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_matmul(dst=acc, stationary=lhs_t, moving=rhs_tile[:, n * 512:(n + 1) * 512])
                nisa.activation(dst=row[:, n * 512:(n + 1) * 512], op=nl.copy, data=acc)
                nisa.tensor_reduce(dst=chunk_max[:, n:n + 1], op=nl.max, data=row[:, n * 512:(n + 1) * 512],
                                   axis=1, keepdims=True)
            nisa.tensor_reduce(dst=neg_max[:, m:m + 1], op=nl.max, data=chunk_max, axis=1, negate=True,
                               keepdims=True)
            scores.append(row)
        for m in nl.affine_range(m_tiles):
            probs = nl.ndarray((128, n_size), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=probs, op=nl.exp, data=scores[m], bias=neg_max[:, m:m + 1], scale=1.0)
            row_sum = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_reduce(dst=row_sum, op=nl.add, data=probs, axis=1, keepdims=True)
            inv_sum = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.reciprocal(dst=inv_sum, data=row_sum)
            res = nl.ndarray((128, n_size), dtype=lhs.dtype, buffer=nl.sbuf)
            nisa.tensor_scalar(dst=res, data=probs, op0=nl.multiply, operand0=inv_sum)
            nisa.dma_copy(dst=out[b, m], src=res)
    return out
