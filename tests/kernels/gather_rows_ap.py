# Indirect DMA gather in the newer API: the index tile is the vector_offset of an access
# pattern on the table (nki-language.md 12: .ap(..., vector_offset=idx_tile, indirect_dim=0)),
# partition p reading row idx[p].
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(table, labels):
    n, d = labels.shape[0], table.shape[1]
    out = nl.ndarray((n, d), dtype=table.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(n // 128):
        idx = nl.ndarray((128, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=idx, src=labels[t * 128:(t + 1) * 128, 0:1])
        rows = nl.ndarray((128, d), dtype=table.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rows, src=table.ap(pattern=[[d, 128], [1, d]], offset=0, vector_offset=idx, indirect_dim=0))
        nisa.dma_copy(dst=out[t * 128:(t + 1) * 128, :], src=rows)
    return out
