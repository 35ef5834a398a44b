# The newer API's calls with every documented keyword (nki-language.md 12.2): dma_copy(dst, src,
# priority=, oob_mode=, dge_mode=, engine=, name=), nc_matmul(dst=, ..., accumulate=, tile_position=,
# tile_size=, perf_mode=nisa.matmul_perf_mode.none, name=), tensor_copy(dst=, src=, engine=, name=).
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(a, b):
    K, M = a.shape
    _, N = b.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    for k in range(K // 128):
        at = nl.ndarray((128, M), dtype=a.dtype, buffer=nl.sbuf)
        bt = nl.ndarray((128, N), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=at, src=a[k * 128:(k + 1) * 128, :], priority=None, oob_mode=nisa.oob_mode.error,
                      dge_mode=nisa.dge_mode.unknown, engine=nisa.unknown_engine, name="load_a")
        nisa.dma_copy(bt, b[k * 128:(k + 1) * 128, :], name="load_b")
        nisa.nc_matmul(dst=ps, stationary=at, moving=bt, is_stationary_onezero=False, is_moving_onezero=False,
                       is_transpose=False, accumulate=(k > 0), tile_position=(), tile_size=(),
                       perf_mode=nisa.matmul_perf_mode.none, name="mm")
    sb = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=sb, src=ps, engine=nisa.vector_engine, name="evacuate")
    nisa.dma_copy(dst=out, src=sb, name="store")
    return out
