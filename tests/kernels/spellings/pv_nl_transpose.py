# p @ v in the legacy neuronxcc API, each [128, 128] block of p transposed by `nl.transpose` (on
# TensorE into PSUM). Same program as pv_legacy_nc_transpose.py, which spells it `nisa.nc_transpose`.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(p, v):
    rows, seq = p.shape
    d = v.shape[1]
    tiles = seq // 128
    out = nl.ndarray((rows, d), dtype=p.dtype, buffer=nl.shared_hbm)
    p_tile = nl.load(p)
    v_tiles = nl.ndarray((tiles, nl.par_dim(128), d), dtype=v.dtype, buffer=nl.sbuf)
    for t in nl.affine_range(tiles):
        v_tiles[t] = nl.load(v[t * 128:(t + 1) * 128, :])
    for j in nl.affine_range(d // 128):
        acc = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.psum)
        for t in nl.affine_range(tiles):
            p_psum = nl.transpose(p_tile[:, t * 128:(t + 1) * 128])
            p_t = nisa.tensor_copy(p_psum)
            acc += nisa.nc_matmul(p_t, v_tiles[t, :, j * 128:(j + 1) * 128])
        res = nisa.tensor_copy(acc, dtype=p.dtype)
        nl.store(out[:, j * 128:(j + 1) * 128], value=res)
    return out
