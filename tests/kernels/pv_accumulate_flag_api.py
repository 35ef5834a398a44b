# inputs: 128x512 512x64
# Newer `nki` API attention P @ V with an explicit accumulate flag: `accumulate=(t > 0)` on the
# matmul of block t (the first block overwrites the PSUM tile, the later ones add: what
# accumulate=None does, nki-language.md 12.3). The transpose -> copy -> matmul chain per block is a
# pipeline_prep site as it is without the flag (held-out author61's gqa_full had none).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(p, v):
    out = nl.ndarray((128, 64), dtype=p.dtype, buffer=nl.shared_hbm)
    p_sb = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=p_sb, src=p)
    v_sb = nl.ndarray((128, 4, 64), dtype=nl.float32, buffer=nl.sbuf)
    for t in range(4):
        nisa.dma_copy(dst=v_sb[:, t, :], src=v[t * 128:(t + 1) * 128, :])
    o_ps = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)
    for t in range(4):
        pt_ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_transpose(dst=pt_ps, data=p_sb[:, t * 128:(t + 1) * 128])
        pt = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=pt, src=pt_ps)
        nisa.nc_matmul(dst=o_ps, stationary=pt, moving=v_sb[:, t, :], accumulate=(t > 0))
    o = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=o, src=o_ps)
    nisa.dma_copy(dst=out, src=o)
    return out
