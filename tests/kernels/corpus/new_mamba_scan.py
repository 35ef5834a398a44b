# Fused Mamba (v2 loop order) in the newer `nki` API: dma_copy into declared SBUF tiles,
# nisa.activation(dst=, op=nl.exp, data=, scale=<per-partition tile>), tensor_tensor(dst=),
# tensor_tensor_scan(dst=, data0=, data1=, initial=0.0, op0=, op1=), an SBUF accumulator
# zeroed with memset(dst=) and updated by tensor_tensor(dst=acc, data1=acc, ...).
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def mamba(delta, u, A, B, C):
    batch_size, channels, seq_len = delta.shape
    _, state_size = A.shape
    output = nl.ndarray((batch_size, channels, seq_len), dtype=delta.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    for b in nl.affine_range(batch_size):
        for ct in nl.affine_range(channels // P):
            c0 = ct * P
            delta_i = nl.ndarray((P, seq_len), dtype=delta.dtype, buffer=nl.sbuf)
            u_i = nl.ndarray((P, seq_len), dtype=delta.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=delta_i, src=delta[b, c0:c0 + P, :])
            nisa.dma_copy(dst=u_i, src=u[b, c0:c0 + P, :])
            acc = nl.ndarray((P, seq_len), dtype=delta.dtype, buffer=nl.sbuf)
            nisa.memset(dst=acc, value=0.0)
            for s in nl.affine_range(state_size):
                a_i = nl.ndarray((P, 1), dtype=A.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=a_i, src=A[c0:c0 + P, s:s + 1])
                delta_a = nl.ndarray((P, seq_len), dtype=delta.dtype, buffer=nl.sbuf)
                nisa.activation(dst=delta_a, op=nl.exp, data=delta_i, scale=a_i)
                b_row = nl.ndarray((1, seq_len), dtype=B.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=b_row, src=B[b, s:s + 1, :])
                delta_u = nl.ndarray((P, seq_len), dtype=delta.dtype, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=delta_u, data1=delta_i, data2=u_i, op=nl.multiply)
                delta_bu = nl.ndarray((P, seq_len), dtype=delta.dtype, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=delta_bu, data1=delta_u, data2=nl.broadcast_to(b_row, shape=(P, seq_len)),
                                   op=nl.multiply)
                scan = nl.ndarray((P, seq_len), dtype=delta.dtype, buffer=nl.sbuf)
                nisa.tensor_tensor_scan(dst=scan, data0=delta_a, data1=delta_bu, initial=0.0, op0=nl.multiply,
                                        op1=nl.add)
                c_row = nl.ndarray((1, seq_len), dtype=C.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=c_row, src=C[b, s:s + 1, :])
                scan_c = nl.ndarray((P, seq_len), dtype=delta.dtype, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=scan_c, data1=scan, data2=nl.broadcast_to(c_row, shape=(P, seq_len)),
                                   op=nl.multiply)
                nisa.tensor_tensor(dst=acc, data1=acc, data2=scan_c, op=nl.add)
            nisa.dma_copy(dst=output[b, c0:c0 + P, :], src=acc)
    return output


kernel = mamba
