import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(delta, u, a, b, c):
    # Selective scan. delta, u: (C, M), a: (C, S), b, c: (S, M). Per 128-channel tile and state:
    # exp(delta * a) on the Scalar Engine, delta * u * b, the scan along M on the Vector Engine,
    # then accumulate c * h over the states in SBUF.
    channels, seq = delta.shape
    _, states = a.shape
    out = nl.ndarray((channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(channels // 128):
        c0 = ct * 128
        delta_tile = nl.ndarray((128, seq), dtype=delta.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=delta_tile, src=delta[c0:c0 + 128, :])
        u_tile = nl.ndarray((128, seq), dtype=u.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=u_tile, src=u[c0:c0 + 128, :])
        a_tile = nl.ndarray((128, states), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_tile, src=a[c0:c0 + 128, :])
        delta_u = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=delta_u, data1=delta_tile, data2=u_tile, op=nl.multiply)
        acc = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=0.0)
        for s in nl.affine_range(states):
            delta_a = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=delta_a, op=nl.exp, data=delta_tile, scale=a_tile[:, s:s + 1])
            b_row = nl.ndarray((1, seq), dtype=b.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=b_row, src=b[s:s + 1, :])
            delta_bu = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=delta_bu, data1=delta_u, data2=nl.broadcast_to(b_row, shape=(128, seq)),
                               op=nl.multiply)
            h = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor_scan(dst=h, data0=delta_a, data1=delta_bu, initial=0.0, op0=nl.multiply, op1=nl.add)
            c_row = nl.ndarray((1, seq), dtype=c.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=c_row, src=c[s:s + 1, :])
            hc = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=hc, data1=h, data2=nl.broadcast_to(c_row, shape=(128, seq)), op=nl.multiply)
            nisa.tensor_tensor(dst=acc, data1=acc, data2=hc, op=nl.add)
        nisa.dma_copy(dst=out[c0:c0 + 128, :], src=acc)
    return out
