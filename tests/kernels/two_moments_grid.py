# Legacy-grid style (one nl.mgrid index grid, tiles indexed by it, literal sizes): a two-pass
# moment update at a small size (p, g, a, b all (200, 256)). The first nest writes both new
# moments to private HBM scratch tensors, the second reads both back; 200 rows are one full and
# one ragged 128-row block, so every load and store is masked. forward_scratch must forward both
# tensors at once, here, in two_moments_tiles.py and in two_moments_api.py, and keep the result.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(v1, v2, v3, v4):
    v5 = nl.ndarray((200, 256), dtype=np.float32, name='a_next', buffer=nl.hbm)
    v6 = nl.ndarray((200, 256), dtype=np.float32, name='b_next', buffer=nl.hbm)
    v7 = nl.ndarray((200, 256), dtype=np.float32, name='out', buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:128]
    for i0 in nl.affine_range(2):
        for i1 in nl.affine_range(2):
            v8 = nl.load(v2[128 * i0 + i_p, 128 * i1 + i_f], mask=(128 * i0 + i_p < 200))
            v9 = nl.load(v3[128 * i0 + i_p, 128 * i1 + i_f], mask=(128 * i0 + i_p < 200))
            v10 = nl.load(v4[128 * i0 + i_p, 128 * i1 + i_f], mask=(128 * i0 + i_p < 200))
            v11 = nl.multiply(v9, 0.8, mask=(128 * i0 + i_p < 200))
            v12 = nl.multiply(v8, 0.2, mask=(128 * i0 + i_p < 200))
            v13 = nl.add(v11, v12, mask=(128 * i0 + i_p < 200))
            v14 = nl.multiply(v8, v8, mask=(128 * i0 + i_p < 200))
            v15 = nl.multiply(v10, 0.95, mask=(128 * i0 + i_p < 200))
            v16 = nl.multiply(v14, 0.05, mask=(128 * i0 + i_p < 200))
            v17 = nl.add(v15, v16, mask=(128 * i0 + i_p < 200))
            nl.store(v5[128 * i0 + i_p, 128 * i1 + i_f], value=v13, mask=(128 * i0 + i_p < 200))
            nl.store(v6[128 * i0 + i_p, 128 * i1 + i_f], value=v17, mask=(128 * i0 + i_p < 200))
    for i2 in nl.affine_range(2):
        for i3 in nl.affine_range(2):
            v18 = nl.load(v1[128 * i2 + i_p, 128 * i3 + i_f], mask=(128 * i2 + i_p < 200))
            v19 = nl.load(v5[128 * i2 + i_p, 128 * i3 + i_f], mask=(128 * i2 + i_p < 200))
            v20 = nl.load(v6[128 * i2 + i_p, 128 * i3 + i_f], mask=(128 * i2 + i_p < 200))
            v21 = nl.multiply(v20, v20, mask=(128 * i2 + i_p < 200))
            v22 = nl.add(v21, 1.0, mask=(128 * i2 + i_p < 200))
            v23 = nl.multiply(v19, 0.1, mask=(128 * i2 + i_p < 200))
            v24 = nl.divide(v23, v22, mask=(128 * i2 + i_p < 200))
            v25 = nl.subtract(v18, v24, mask=(128 * i2 + i_p < 200))
            nl.store(v7[128 * i2 + i_p, 128 * i3 + i_f], value=v25, mask=(128 * i2 + i_p < 200))
    return v7
