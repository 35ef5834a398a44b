# nki-language.md 1.6: the newer-API idioms of the matrix-multiplication tutorial (dst= instructions, .ap, platform_target).
import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit(platform_target="trn2")
def mm(a, b):
    out = nl.ndarray((128, 128), nl.float32, buffer=nl.shared_hbm)
    at = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    bt = nl.ndarray(shape=(128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=at, src=a)
    nisa.dma_copy(src=b, dst=bt)
    ps = nl.ndarray((128, 128), nl.float32, buffer=nl.psum)
    nisa.nc_matmul(ps, at, bt)
    res = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps, dtype=nl.float32)
    z = nl.ndarray((128, 128), nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=z, value=0.0)
    nisa.tensor_tensor(dst=res, data1=res, data2=z, op=nl.add)
    half = res.ap(pattern=[[128, 128], [1, 64]], offset=0)
    nisa.dma_copy(dst=out[:, 0:64], src=half)
    nisa.dma_copy(dst=out[:, 64:128], src=res[:, 64:128])
    return out


a = np.random.rand(128, 128).astype(np.float32)
b = np.random.rand(128, 128).astype(np.float32)
print(np.allclose(mm(a, b), a.T @ b, rtol=1e-4))
