# Newer nki API: the chunked selective scan of chunk_scan_api.py with the carry between chunks
# starting as the host number 0.0 (`carry = 0.0`) and rebound to the last column of the chunk's
# scan (`carry = h[:, CH - 1:CH]`). Python's first iteration reads the number, the later ones a tile:
# the sequential loop lifts as one loop carrying a tile the binding fills with 0.0
# (lift_host_carry.cpp), so a move inside it prints the loop, not 4 unrolled copies.
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
        for s in nl.affine_range(states):
            carry = 0.0
            for j in nl.sequential_range(seq // CH):
                d = nl.ndarray((128, CH), dtype=delta.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=d, src=delta[c0:c0 + 128, j * CH:(j + 1) * CH])
                uu = nl.ndarray((128, CH), dtype=u.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=uu, src=u[c0:c0 + 128, j * CH:(j + 1) * CH])
                decay = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=decay, op=nl.exp, data=d, scale=a_tile[:, s:s + 1])
                b_row = nl.ndarray((1, CH), dtype=b.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=b_row, src=b[s:s + 1, j * CH:(j + 1) * CH])
                du = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=du, data1=d, data2=uu, op=nl.multiply, engine=nisa.gpsimd_engine)
                drive = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=drive, data1=du, data2=nl.broadcast_to(b_row, shape=(128, CH)), op=nl.multiply)
                h = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor_scan(dst=h, data0=decay, data1=drive, initial=carry, op0=nl.multiply, op1=nl.add)
                carry = h[:, CH - 1:CH]
                c_row = nl.ndarray((1, CH), dtype=c.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=c_row, src=c[s:s + 1, j * CH:(j + 1) * CH])
                hc = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=hc, data1=h, data2=nl.broadcast_to(c_row, shape=(128, CH)), op=nl.multiply)
                nisa.tensor_tensor(dst=acc[:, j * CH:(j + 1) * CH], data1=acc[:, j * CH:(j + 1) * CH], data2=hc,
                                   op=nl.add)
        nisa.dma_copy(dst=out[c0:c0 + 128, :], src=acc)
    return out
