# Newer nki API: the fused Mamba tutorial's v1 nest (state loop outside the channel-tile loop, whole
# rows of the sequence) as tests/kernels/naive/mamba_M7168_C256_S16_0.py has it in the legacy API:
# delta and u are read once per (state, channel tile), and delta * u computed as often.
import nki
import nki.language as nl
import nki.isa as nisa

P = 128


@nki.jit
def kernel(delta, u, a, b, c):
    channels, seq = delta.shape
    _, states = a.shape
    out = nl.ndarray((channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    accs = []
    for ct in nl.static_range(channels // P):
        acc = nl.ndarray((P, seq), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=0.0)
        accs.append(acc)
    for s in nl.affine_range(states):
        for ct in nl.affine_range(channels // P):
            d = nl.ndarray((P, seq), dtype=delta.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=d, src=delta[ct * P:(ct + 1) * P, :])
            a_col = nl.ndarray((P, 1), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=a_col, src=a[ct * P:(ct + 1) * P, s:s + 1])
            decay = nl.ndarray((P, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=decay, op=nl.exp, data=d, scale=a_col)
            uu = nl.ndarray((P, seq), dtype=u.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=uu, src=u[ct * P:(ct + 1) * P, :])
            du = nl.ndarray((P, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=du, data1=d, data2=uu, op=nl.multiply)
            b_row = nl.ndarray((1, seq), dtype=b.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=b_row, src=b[s:s + 1, :])
            drive = nl.ndarray((P, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=drive, data1=du, data2=nl.broadcast_to(b_row, shape=(P, seq)), op=nl.multiply)
            h = nl.ndarray((P, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor_scan(dst=h, data0=decay, data1=drive, initial=0.0, op0=nl.multiply, op1=nl.add)
            c_row = nl.ndarray((1, seq), dtype=c.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=c_row, src=c[s:s + 1, :])
            hc = nl.ndarray((P, seq), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=hc, data1=h, data2=nl.broadcast_to(c_row, shape=(P, seq)), op=nl.multiply)
            nisa.tensor_tensor(dst=accs[ct], data1=accs[ct], data2=hc, op=nl.add)
    for ct in nl.affine_range(channels // P):
        nisa.dma_copy(dst=out[ct * P:(ct + 1) * P, :], src=accs[ct])
    return out
