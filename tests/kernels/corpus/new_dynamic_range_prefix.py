import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
    # A register-driven runtime loop (nl.dynamic_range, NKI 0.2-0.5) over the row blocks of x:
    # a running sum of the blocks carried in an SBUF tile, each prefix stored as it is formed.
    T, P, N = x.shape
    out = nl.ndarray((T, P, N), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.dynamic_range(T):
        t = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)
        nisa.dma_copy(dst=out[i], src=acc)
    return out
