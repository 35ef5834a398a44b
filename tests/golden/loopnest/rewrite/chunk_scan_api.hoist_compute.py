# Newer nki API (destination-first calls into declared tiles): the chunked selective scan of
# chunk_scan_tiles.py, the same nest. `d`, `uu` and `du = d * uu` do not depend on the state loop.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(delta, u, a, b, c):
    channels, seq = delta.shape
    _, states = a.shape
    CH = 512
    out = nl.ndarray((channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(channels // 128):
        c0 = ct * 128
        a_tile = nl.ndarray((128, states), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_tile, src=a[c0:c0 + 128, :])
        acc = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=0.0)
        d = nl.ndarray((128, seq // CH, 512), dtype=delta.dtype, buffer=nl.sbuf)
        du = nl.ndarray((128, seq // CH, 512), dtype=nl.float32, buffer=nl.sbuf)
        for j in nl.sequential_range(seq // CH):
            uu = nl.ndarray((128, CH), dtype=u.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=d[:, j, :], src=delta[c0:c0 + 128, j * CH:(j + 1) * CH])
            nisa.dma_copy(dst=uu[...], src=u[c0:c0 + 128, j * CH:(j + 1) * CH])
            nisa.tensor_tensor(dst=du[:, j, :], data1=d[:, j, :], data2=uu, op=nl.multiply)
        for s in nl.affine_range(states):
            carry = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(dst=carry, value=0.0)
            for j in nl.sequential_range(seq // CH):
                decay = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=decay, op=nl.exp, data=d[:, j, :], scale=a_tile[:, s:s + 1])
                b_row = nl.ndarray((1, CH), dtype=b.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=b_row, src=b[s:s + 1, j * CH:(j + 1) * CH])
                drive = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=drive, data1=du[:, j, :], data2=nl.broadcast_to(b_row, shape=(128, CH)), op=nl.multiply)
                h = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor_scan(dst=h, data0=decay, data1=drive, initial=carry, op0=nl.multiply, op1=nl.add)
                nisa.tensor_copy(dst=carry, src=h[:, CH - 1:CH])
                c_row = nl.ndarray((1, CH), dtype=c.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=c_row, src=c[s:s + 1, j * CH:(j + 1) * CH])
                hc = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=hc, data1=h, data2=nl.broadcast_to(c_row, shape=(128, CH)), op=nl.multiply)
                nisa.tensor_tensor(dst=acc[:, j * CH:(j + 1) * CH], data1=acc[:, j * CH:(j + 1) * CH], data2=hc,
                                   op=nl.add)
        nisa.dma_copy(dst=out[c0:c0 + 128, :], src=acc)
    return out
