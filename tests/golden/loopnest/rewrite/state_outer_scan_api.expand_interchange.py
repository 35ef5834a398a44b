# Newer nki API: the selective scan of chunk_scan.ref.py with the STATE loop outermost, as an outside
# author wrote it (a Python list of carry tiles, one per channel tile, and `0.0 if blk == 0 else
# carry`). delta and u are loaded, and delta * u computed, once per state: 4x here. The carry tile
# is reused by every state (re-initialised at blk == 0, carried across blk), which alone makes
# moving `s` inside `blk` illegal as written; expand_buffer gives each state its own carry column.
import nki
import nki.language as nl
import nki.isa as nisa

W = 512


@nki.jit
def kernel(delta, u, a, b, c):
    channels, seq = delta.shape
    _, states = a.shape
    n_ct = channels // 128
    out = nl.ndarray((channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    a_tiles = []
    carry_tiles = []
    acc_tiles = []
    for ct in nl.static_range(n_ct):
        a_t = nl.ndarray((128, states), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_t, src=a[ct * 128:(ct + 1) * 128, :])
        a_tiles.append(a_t)
        carry_tiles.append(nl.ndarray((128, states), dtype=nl.float32, buffer=nl.sbuf))
        acc = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=0.0)
        acc_tiles.append(acc)
    for blk in nl.sequential_range(seq // W):
        t0 = blk * W
        b_row2 = nl.ndarray(shape=(128, states, 512), dtype=nl.float32, buffer=nl.sbuf)
        for s in nl.affine_range(states):
            b_row = nl.ndarray((1, W), dtype=b.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=b_row[...], src=b[s:s + 1, t0:t0 + W])
            b_row2[:, s, :] = nl.broadcast_to(b_row, shape=(128, W))
        for ct in nl.affine_range(n_ct):
            d = nl.ndarray((128, W), dtype=delta.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=d, src=delta[ct * 128:(ct + 1) * 128, t0:t0 + W])
            uu = nl.ndarray((128, W), dtype=u.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=uu, src=u[ct * 128:(ct + 1) * 128, t0:t0 + W])
            du = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=du, data1=d, data2=uu, op=nl.multiply)
            for s in nl.affine_range(states):
                decay = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=decay, op=nl.exp, data=d, scale=a_tiles[ct][:, s:s + 1])
                drive = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=drive, data1=du, data2=b_row2[:, s, :], op=nl.multiply)
                h = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor_scan(dst=h, data0=decay, data1=drive, initial=(0.0 if blk == 0 else carry_tiles[ct][:, s:s + 1]), op0=nl.multiply, op1=nl.add)
                nisa.tensor_copy(dst=carry_tiles[ct][:, s:s + 1], src=h[:, W - 1:W])
                c_row = nl.ndarray((1, W), dtype=c.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=c_row, src=c[s:s + 1, t0:t0 + W])
                hc = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=hc, data1=h, data2=nl.broadcast_to(c_row, shape=(128, W)), op=nl.multiply)
                nisa.tensor_tensor(dst=acc_tiles[ct][:, t0:t0 + W], data1=acc_tiles[ct][:, t0:t0 + W], data2=hc,
                                   op=nl.add)
    for ct in nl.affine_range(n_ct):
        nisa.dma_copy(dst=out[ct * 128:(ct + 1) * 128, :], src=acc_tiles[ct])
    return out
