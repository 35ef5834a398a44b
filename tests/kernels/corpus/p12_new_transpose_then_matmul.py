# relu(x @ w) for a row-major x, in the newer `nki` API: each (128, 128) block of x transposed on the
# Tensor Engine (nc_transpose(dst=psum)), copied to SBUF by tensor_copy(dst=), and used as the
# stationary operand of nc_matmul(dst=psum, stationary=, moving=) accumulating over the K blocks;
# activation(dst=, op=nl.relu) out of PSUM; the K loop's trip count from nl.tile_size.pmax.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def relu_matmul(x, w):
    M, K = x.shape
    K2, N = w.shape
    assert K == K2 and N <= nl.tile_size.gemm_moving_fmax
    P = nl.tile_size.pmax
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in range(M // P):
        acc = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.psum)
        for k in range(K // P):
            xb = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=xb, src=x[m * P:(m + 1) * P, k * P:(k + 1) * P])
            xT_psum = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.psum)
            nisa.nc_transpose(dst=xT_psum, data=xb)
            xT = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=xT, src=xT_psum)
            wb = nl.ndarray((P, N), dtype=w.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=wb, src=w[k * P:(k + 1) * P, :])
            nisa.nc_matmul(dst=acc, stationary=xT, moving=wb)
        res = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=res, op=nl.relu, data=acc)
        nisa.dma_copy(dst=out[m * P:(m + 1) * P, :], src=res)
    return out
