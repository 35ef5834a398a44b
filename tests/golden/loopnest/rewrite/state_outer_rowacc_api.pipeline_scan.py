# Newer nki API: the state-outer selective scan of state_outer_rowacc.py written destination-first:
# the carry (`last`) declared and memset inside the state loop, the full-row accumulator `total`
# declared and memset before it, added into window by window (`total[:, cols] = total[:, cols] +
# hc`) and copied to HBM whole after every state.
import nki
import nki.language as nl
import nki.isa as nisa

W = 512


@nki.jit
def kernel(delta, u, a, b, c):
    channels, seq = delta.shape
    states = a.shape[1]
    out = nl.ndarray((channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(channels // 128):
        r0 = ct * 128
        d_t = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=d_t, src=delta[r0:r0 + 128, :])
        u_t = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=u_t, src=u[r0:r0 + 128, :])
        a_t = nl.ndarray((128, states), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_t, src=a[r0:r0 + 128, :])
        du = nl.ndarray((128, seq), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=du, data1=d_t, data2=u_t, op=nl.multiply)
        last = nl.ndarray((128, states), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=last[...], value=0.0)
        for j in nl.sequential_range(seq // W):
            total = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.psum)
            nisa.memset(dst=total[...], value=0.0)
            for s in nl.affine_range(states):
                decay = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.activation(dst=decay, op=nl.exp, data=d_t[:, j * W:(j + 1) * W], scale=a_t[:, s:s + 1])
                b_row = nl.ndarray((1, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.dma_copy(dst=b_row, src=b[s:s + 1, j * W:(j + 1) * W])
                drive = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=drive, data1=du[:, j * W:(j + 1) * W], data2=nl.broadcast_to(b_row, shape=(128, W)),
                                   op=nl.multiply)
                h = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor_scan(dst=h, data0=decay, data1=drive, initial=last[:, s:s + 1], op0=nl.multiply, op1=nl.add)
                nisa.tensor_copy(dst=last[:, s:s + 1], src=h[:, W - 1:W])
                c_row = nl.ndarray((1, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.dma_copy(dst=c_row, src=c[s:s + 1, j * W:(j + 1) * W])
                hc = nl.ndarray((128, W), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=hc, data1=h, data2=nl.broadcast_to(c_row, shape=(128, W)), op=nl.multiply)
                nisa.tensor_tensor(dst=total[...], data1=total, data2=hc, op=nl.add)
            total_sbuf = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
            total_sbuf[...] = total
            nisa.dma_copy(dst=out[r0:r0 + 128, 512*j:512*j + 512], src=total_sbuf)
    return out
