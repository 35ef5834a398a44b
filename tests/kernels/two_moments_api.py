# Newer nki API (tiles declared then written by destination-first calls, nl.ds windows): a two-pass
# moment update at a small size (p, g, a, b all (200, 256)). The first nest writes both new moments
# to private HBM scratch tensors, the second reads both back; 200 rows are one full and one ragged
# 128-row block, the ragged one cut by its window height. forward_scratch must forward both tensors
# at once, here, in two_moments_tiles.py and in two_moments_grid.py, and keep the result.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(p, g, a, b):
    M, N = p.shape
    P = 128
    F = 128
    a_next = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.hbm)
    b_next = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.hbm)
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for r in nl.affine_range((M + P - 1) // P):
        h = min(P, M - r * P)
        for c in nl.affine_range(N // F):
            g_t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=g_t[0:h, :], src=g[nl.ds(r * P, h), nl.ds(c * F, F)])
            a_t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=a_t[0:h, :], src=a[nl.ds(r * P, h), nl.ds(c * F, F)])
            b_t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=b_t[0:h, :], src=b[nl.ds(r * P, h), nl.ds(c * F, F)])
            a_new = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.scalar_tensor_tensor(dst=a_new[0:h, :], data=a_t[0:h, :], op0=nl.multiply, operand0=4.0,
                                      op1=nl.add, operand1=g_t[0:h, :])
            nisa.tensor_scalar(dst=a_new[0:h, :], data=a_new[0:h, :], op0=nl.multiply, operand0=0.2)
            g_sq = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=g_sq[0:h, :], data1=g_t[0:h, :], data2=g_t[0:h, :], op=nl.multiply)
            b_new = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.scalar_tensor_tensor(dst=b_new[0:h, :], data=b_t[0:h, :], op0=nl.multiply, operand0=19.0,
                                      op1=nl.add, operand1=g_sq[0:h, :])
            nisa.tensor_scalar(dst=b_new[0:h, :], data=b_new[0:h, :], op0=nl.multiply, operand0=0.05)
            nisa.dma_copy(dst=a_next[nl.ds(r * P, h), nl.ds(c * F, F)], src=a_new[0:h, :])
            nisa.dma_copy(dst=b_next[nl.ds(r * P, h), nl.ds(c * F, F)], src=b_new[0:h, :])
    for r in nl.affine_range((M + P - 1) // P):
        h = min(P, M - r * P)
        for c in nl.affine_range(N // F):
            p_t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=p_t[0:h, :], src=p[nl.ds(r * P, h), nl.ds(c * F, F)])
            a_back = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=a_back[0:h, :], src=a_next[nl.ds(r * P, h), nl.ds(c * F, F)])
            b_back = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=b_back[0:h, :], src=b_next[nl.ds(r * P, h), nl.ds(c * F, F)])
            scale = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=scale[0:h, :], data1=b_back[0:h, :], data2=b_back[0:h, :], op=nl.multiply)
            nisa.tensor_scalar(dst=scale[0:h, :], data=scale[0:h, :], op0=nl.add, operand0=1.0)
            step = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.reciprocal(dst=scale[0:h, :], data=scale[0:h, :])
            nisa.tensor_tensor(dst=step[0:h, :], data1=a_back[0:h, :], data2=scale[0:h, :], op=nl.multiply)
            nisa.tensor_scalar(dst=step[0:h, :], data=step[0:h, :], op0=nl.multiply, operand0=0.1)
            res = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=res[0:h, :], data1=p_t[0:h, :], data2=step[0:h, :], op=nl.subtract)
            nisa.dma_copy(dst=out[nl.ds(r * P, h), nl.ds(c * F, F)], src=res[0:h, :])
    return out
