# Newer nki API, every tile a buffer declared once up front and written in place (`dst=`): a
# two-layer MLP per block of rows. x: (nb, sub, 128, 128), w1: (128, h), w2: (h // 128, 128, d).
# The column-block loops load a weight slice into the same buffer each iteration (`w2t`), and
# the row loops read it: moving a row loop out of a column-block loop reads the slice of another
# block, and running two rows or two blocks at once overwrites the one buffer.
import nki
import nki.language as nl
import nki.isa as nisa

P = nl.tile_size.pmax
COLS = 512


@nki.jit
def kernel(x, w1, w2):
    nb, sub, _, _ = x.shape
    ht = w2.shape[0]
    d = w2.shape[2]
    n_oc = d // COLS
    out = nl.ndarray((nb * sub, P, d), dtype=x.dtype, buffer=nl.shared_hbm)

    xr = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.sbuf)
    tp = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.psum)
    xT = nl.ndarray((P, sub * P), dtype=x.dtype, buffer=nl.sbuf)
    w1t = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.sbuf)
    hT = nl.ndarray((P, ht, sub * P), dtype=x.dtype, buffer=nl.sbuf)
    w2t = nl.ndarray((P, ht, COLS), dtype=x.dtype, buffer=nl.sbuf)
    ot = nl.ndarray((P, COLS), dtype=x.dtype, buffer=nl.sbuf)

    for a in nl.affine_range(nb):
        # the block's rows transposed: the contraction dim on partitions
        for r in nl.affine_range(sub):
            nisa.dma_copy(dst=xr, src=x[a, r])
            nisa.nc_transpose(dst=tp, data=xr)
            nisa.tensor_copy(dst=xT[:, r * P:(r + 1) * P], src=tp)
        # hidden^T one 128-row tile at a time, the weight slice stationary
        for j in nl.affine_range(ht):
            hp = nl.ndarray((P, sub * P), dtype=nl.float32, buffer=nl.psum)
            nisa.dma_copy(dst=w1t, src=w1[:, j * P:(j + 1) * P])
            nisa.nc_matmul(dst=hp, stationary=w1t, moving=xT)
            nisa.activation(dst=hT[:, j, :], op=nl.relu, data=hp)
        # output columns a block at a time, the w2 slice of the block loaded once for its rows
        for oc in nl.affine_range(n_oc):
            for t in nl.affine_range(ht):
                nisa.dma_copy(dst=w2t[:, t, :], src=w2[t, :, oc * COLS:(oc + 1) * COLS])
            for r in nl.affine_range(sub):
                ps = nl.ndarray((P, COLS), dtype=nl.float32, buffer=nl.psum)
                for t in nl.affine_range(ht):
                    nisa.nc_matmul(dst=ps, stationary=hT[:, t, r * P:(r + 1) * P], moving=w2t[:, t, :])
                nisa.tensor_copy(dst=ot, src=ps)
                nisa.dma_copy(dst=out[a * sub + r, :, oc * COLS:(oc + 1) * COLS], src=ot)
    return out
