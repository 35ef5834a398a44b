import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(q, k, v):
    # q: (N/128, 128, QH, D), k: (B, N/512, 4, 128, KH, D), v: (B, N/128, 128, KH*D); B = 1.
    # Per query head: K^T of its kv head is built with Tensor Engine transposes; a first loop
    # nest produces all scaled score rows (a list of [128 x N] tiles) and their maxima, a second
    # one exponentiates, normalises, transposes the probabilities and accumulates P @ V in PSUM.
    q_tiles, _, q_heads, d_head = q.shape
    batch, k_outer, k_inner, _, kv_heads, _ = k.shape
    kv_tiles = k_outer * k_inner
    seq = kv_tiles * 128
    group = q_heads // kv_heads
    n_chunks = seq // 512
    scale = 1.0 / (d_head ** 0.5)
    out = nl.ndarray((batch, kv_heads, group, q_tiles, 128, d_head), dtype=q.dtype, buffer=nl.shared_hbm)
    for h_blk in nl.affine_range(q_heads // 2):
        k_t = nl.ndarray((d_head, seq), dtype=nl.float32, buffer=nl.sbuf)
        v_tiles = nl.ndarray((128, kv_tiles, d_head), dtype=v.dtype, buffer=nl.sbuf)
        for t in nl.affine_range(kv_tiles):
            k_tile = nl.ndarray((128, d_head), dtype=k.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=k_tile, src=k[0, t // k_inner, t % k_inner, :, h_blk, :])
            k_psum = nl.ndarray((d_head, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=k_psum, data=k_tile)
            nisa.activation(dst=k_t[:, t * 128:(t + 1) * 128], op=nl.copy, data=k_psum)
            nisa.dma_copy(dst=v_tiles[:, t, :], src=v[0, t, :, 128*h_blk:128*h_blk + 128])
        scores_0 = []
        scores_1 = []
        neg_max_0 = nl.ndarray((128, q_tiles), dtype=nl.float32, buffer=nl.sbuf)
        neg_max_1 = nl.ndarray((128, q_tiles), dtype=nl.float32, buffer=nl.sbuf)
        for qt in nl.affine_range(q_tiles):
            q_tile_0 = nl.ndarray((128, d_head), dtype=q.dtype, buffer=nl.sbuf)
            q_tile_1 = nl.ndarray((128, d_head), dtype=q.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=q_tile_0[...], src=q[qt, :, 2*h_blk, :])
            nisa.dma_copy(dst=q_tile_1[...], src=q[qt, :, 2*h_blk + 1, :])
            q_psum_0 = nl.ndarray((d_head, 128), dtype=nl.float32, buffer=nl.psum)
            q_psum_1 = nl.ndarray((d_head, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=q_psum_0[...], data=q_tile_0)
            nisa.nc_transpose(dst=q_psum_1[...], data=q_tile_1)
            q_t_0 = nl.ndarray((d_head, 128), dtype=nl.float32, buffer=nl.sbuf)
            q_t_1 = nl.ndarray((d_head, 128), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=q_t_0[...], op=nl.copy, data=q_psum_0)
            nisa.activation(dst=q_t_1[...], op=nl.copy, data=q_psum_1)
            row_0 = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            row_1 = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            chunk_max_0 = nl.ndarray((128, n_chunks), dtype=nl.float32, buffer=nl.sbuf)
            chunk_max_1 = nl.ndarray((128, n_chunks), dtype=nl.float32, buffer=nl.sbuf)
            for n in nl.affine_range(n_chunks):
                acc_0 = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                acc_1 = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_matmul(dst=acc_0[...], stationary=q_t_0, moving=k_t[:, n * 512:(n + 1) * 512])
                nisa.nc_matmul(dst=acc_1[...], stationary=q_t_1, moving=k_t[:, n * 512:(n + 1) * 512])
                nisa.tensor_scalar(dst=row_0[:, 512*n:512*n + 512], data=acc_0, op0=nl.multiply, operand0=scale)
                nisa.tensor_scalar(dst=row_1[:, 512*n:512*n + 512], data=acc_1, op0=nl.multiply, operand0=scale)
                nisa.tensor_reduce(dst=chunk_max_0[:, n:n + 1], op=nl.max, data=row_0[:, 512*n:512*n + 512], axis=1, keepdims=True)
                nisa.tensor_reduce(dst=chunk_max_1[:, n:n + 1], op=nl.max, data=row_1[:, 512*n:512*n + 512], axis=1, keepdims=True)
            nisa.tensor_reduce(dst=neg_max_0[:, qt:qt + 1], op=nl.max, data=chunk_max_0, axis=1, negate=True, keepdims=True)
            nisa.tensor_reduce(dst=neg_max_1[:, qt:qt + 1], op=nl.max, data=chunk_max_1, axis=1, negate=True, keepdims=True)
            scores_0.append(row_0)
            scores_1.append(row_1)
        for qt in nl.affine_range(q_tiles):
            probs_0 = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            probs_1 = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=probs_0[...], op=nl.exp, data=scores_0[qt], bias=neg_max_0[:, qt:qt + 1], scale=1.0)
            nisa.activation(dst=probs_1[...], op=nl.exp, data=scores_1[qt], bias=neg_max_1[:, qt:qt + 1], scale=1.0)
            row_sum_0 = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            row_sum_1 = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_reduce(dst=row_sum_0[...], op=nl.add, data=probs_0, axis=1, keepdims=True)
            nisa.tensor_reduce(dst=row_sum_1[...], op=nl.add, data=probs_1, axis=1, keepdims=True)
            inv_sum_0 = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            inv_sum_1 = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.reciprocal(dst=inv_sum_0[...], data=row_sum_0)
            nisa.reciprocal(dst=inv_sum_1[...], data=row_sum_1)
            probs_n_0 = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            probs_n_1 = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_scalar(dst=probs_n_0[...], data=probs_0, op0=nl.multiply, operand0=inv_sum_0)
            nisa.tensor_scalar(dst=probs_n_1[...], data=probs_1, op0=nl.multiply, operand0=inv_sum_1)
            acc_0 = nl.ndarray((128, d_head), dtype=nl.float32, buffer=nl.psum)
            acc_1 = nl.ndarray((128, d_head), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(kv_tiles):
                p_psum_0 = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                p_psum_1 = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_transpose(dst=p_psum_0[...], data=probs_n_0[:, 128*t:128*t + 128])
                nisa.nc_transpose(dst=p_psum_1[...], data=probs_n_1[:, 128*t:128*t + 128])
                p_t_0 = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
                p_t_1 = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=p_t_0[...], op=nl.copy, data=p_psum_0)
                nisa.activation(dst=p_t_1[...], op=nl.copy, data=p_psum_1)
                nisa.nc_matmul(dst=acc_0[...], stationary=p_t_0, moving=v_tiles[:, t, :])
                nisa.nc_matmul(dst=acc_1[...], stationary=p_t_1, moving=v_tiles[:, t, :])
            res_0 = nl.ndarray((128, d_head), dtype=q.dtype, buffer=nl.sbuf)
            res_1 = nl.ndarray((128, d_head), dtype=q.dtype, buffer=nl.sbuf)
            nisa.activation(dst=res_0[...], op=nl.copy, data=acc_0)
            nisa.activation(dst=res_1[...], op=nl.copy, data=acc_1)
            nisa.dma_copy(dst=out[0, h_blk, 0, qt, :, :], src=res_0)
            nisa.dma_copy(dst=out[0, h_blk, 1, qt, :, :], src=res_1)
    return out
