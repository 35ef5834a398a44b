# RMSNorm over 300 rows in the newer `nki` API: row tiles of nl.tile_size.pmax with a ragged last tile
# by min(), every step a destination-first instruction into a slice of a full-size tile
# (tensor_tensor square, tensor_reduce(axis=1, keepdims=True), two-op tensor_scalar,
# activation(op=nl.rsqrt), tensor_scalar with a (P, 1) operand), gamma broadcast over the
# partitions by the HBM view method `.broadcast(0, P)`.
import nki
import nki.isa as nisa
import nki.language as nl

EPS = 1e-6


@nki.jit
def rmsnorm(x, gamma):
    N, D = x.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    g = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=g, src=gamma.broadcast(0, P))
    for t in range((N + P - 1) // P):
        r0 = t * P
        rs = min(P, N - r0)
        xt = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt[:rs, :], src=x[r0:r0 + rs, :])
        sq = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=sq[:rs, :], data1=xt[:rs, :], data2=xt[:rs, :], op=nl.multiply)
        ss = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=ss[:rs, :], op=nl.add, data=sq[:rs, :], axis=1, keepdims=True)
        nisa.tensor_scalar(dst=ss[:rs, :], data=ss[:rs, :], op0=nl.multiply, operand0=1.0 / D,
                           op1=nl.add, operand1=EPS)
        rstd = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rstd[:rs, :], op=nl.rsqrt, data=ss[:rs, :])
        y = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y[:rs, :], data=xt[:rs, :], op0=nl.multiply, operand0=rstd[:rs, :])
        nisa.tensor_tensor(dst=y[:rs, :], data1=y[:rs, :], data2=g[:rs, :], op=nl.multiply)
        nisa.dma_copy(dst=out[r0:r0 + rs, :], src=y[:rs, :])
    return out
