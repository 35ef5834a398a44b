import nki
import nki.language as nl
import nki.isa as nisa


# An item of a list of PSUM buffers reshaped keeping its partitions (`ps.reshape((P, 4, P))`
# after four transposes into its column blocks), as an ISA-level author evacuates them.
@nki.jit
def kernel(x):
    P = 128
    out = nl.ndarray((P, 8, P), dtype=x.dtype, buffer=nl.shared_hbm)
    xs = nl.ndarray((P, 8 * P), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xs, src=x)
    o = nl.ndarray((P, 8, P), dtype=x.dtype, buffer=nl.sbuf)
    tps = [nl.ndarray((P, 4 * P), dtype=nl.float32, buffer=nl.psum) for _ in range(2)]
    for kq in range(2):
        ps = tps[kq % 2]
        for i in range(4):
            nisa.nc_transpose(dst=ps[:, i * P:(i + 1) * P], data=xs[:, (kq * 4 + i) * P:(kq * 4 + i + 1) * P])
        nisa.tensor_copy(dst=o[:, kq * 4:(kq + 1) * 4, :], src=ps.reshape((P, 4, P)))
    nisa.dma_copy(dst=out, src=o)
    return out
