# P @ V over key tiles written with nl.static_range (an unrolled loop, which promises nothing about
# its iterations): each iteration transposes one 128-column block of the probabilities on the
# Tensor Engine and accumulates one matmul. The iterations only accumulate, so the transposes may
# be pipelined ahead of the matmuls like those of an affine loop.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(p, v):
    rows, keys = p.shape
    d = v.shape[1]
    out = nl.ndarray((rows, d), dtype=p.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        probs = nl.ndarray((128, keys), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=probs, src=p[r * 128:(r + 1) * 128, :])
        acc = nl.ndarray((128, d), dtype=nl.float32, buffer=nl.psum)
        for t in nl.static_range(keys // 128):
            tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=tp, data=probs[:, t * 128:(t + 1) * 128])
            p_t = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=p_t, src=tp)
            v_t = nl.ndarray((128, d), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=v_t, src=v[t * 128:(t + 1) * 128, :])
            nisa.nc_matmul(dst=acc, stationary=p_t, moving=v_t)
        o = nl.ndarray((128, d), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=o, src=acc)
        nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, :], src=o)
    return out
