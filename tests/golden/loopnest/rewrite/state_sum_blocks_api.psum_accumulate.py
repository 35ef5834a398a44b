# Newer nki API: a sum over states kept per channel block in one SBUF buffer whose blocks lie along
# a free dim (acc (128, 2, 512): two PSUM banks as one tensor), started from its first term (`if s ==
# 0`), as a port from GPU code writes it. h, c: (4, 256, 512); out (256, 512) = sum over s of
# h[s] * c[s]. psum_accumulate makes acc a list of PSUM tiles, one bank per block (that API has no
# block dims), each add then reading one PSUM input.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(h, c):
    S, C, F = h.shape
    n_blk = C // 128
    out = nl.ndarray((C, F), dtype=h.dtype, buffer=nl.shared_hbm)
    acc = [nl.ndarray((128, F), dtype=nl.float32, buffer=nl.psum) for _ in range(n_blk)]
    for s in nl.sequential_range(S):
        for j in nl.affine_range(n_blk):
            h_t = nl.ndarray((128, F), dtype=h.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=h_t, src=h[s, j * 128:(j + 1) * 128, :])
            c_t = nl.ndarray((128, F), dtype=c.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=c_t, src=c[s, j * 128:(j + 1) * 128, :])
            if s == 0:
                nisa.tensor_tensor(dst=acc[j][...], data1=h_t, data2=c_t, op=nl.multiply)
            else:
                hc = nl.ndarray((128, F), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_tensor(dst=hc, data1=h_t, data2=c_t, op=nl.multiply)
                nisa.tensor_tensor(dst=acc[j][...], data1=acc[j], data2=hc, op=nl.add)
    for j in nl.affine_range(n_blk):
        acc_sbuf = nl.ndarray(shape=(128, 512), dtype=nl.float32, buffer=nl.sbuf)
        acc_sbuf[...] = acc[j]
        nisa.dma_copy(dst=out[j * 128:(j + 1) * 128, :], src=acc_sbuf)
    return out
