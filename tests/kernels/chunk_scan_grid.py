# Legacy index-grid style (decompiled names, block buffers indexed by every enclosing loop): the
# chunked selective scan of chunk_scan_tiles.py at delta, u (256, 2048), a (256, 4), b, c (4, 2048),
# the same nest. v10 (delta), v11 (u) and v15 (their product) do not depend on the state loop i1.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2, v3, v4, v5):
  v6 = nl.ndarray((256, 2048), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v7 = nl.ndarray((2, par_dim(128), 4), dtype=np.float32, name='a_tile', buffer=nl.sbuf)
  v8 = nl.zeros((2, 4, par_dim(128), 512), dtype=np.float32, name='acc', buffer=nl.sbuf)
  v10 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='d', buffer=nl.sbuf)
  v11 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='uu', buffer=nl.sbuf)
  v12 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='decay', buffer=nl.sbuf)
  v13 = nl.ndarray((2, 4, 4, 2, par_dim(1), 512), dtype=np.float32, name='rows', buffer=nl.sbuf)
  v14 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='b_bcast', buffer=nl.sbuf)
  v15 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='du', buffer=nl.sbuf)
  v16 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='drive', buffer=nl.sbuf)
  v17 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='h', buffer=nl.sbuf)
  v18 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='c_bcast', buffer=nl.sbuf)
  v19 = nl.ndarray((2, 4, 4, par_dim(128), 512), dtype=np.float32, name='hc', buffer=nl.sbuf)
  for i0 in nl.affine_range(2):
    v7[i0, nl.arange(128)[:, None], nl.arange(4)[None, :]] = nl.load(v3[128*i0 + nl.arange(128)[:, None], nl.arange(4)[None, :]], dtype=np.float32, mask=None)
    for i1 in nl.affine_range(4):
      v9 = nl.zeros((par_dim(128), 1), dtype=np.float32, name='carry', buffer=nl.sbuf)
      for i2 in nl.sequential_range(4):
        v10[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v1[128*i0 + nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        v11[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v2[128*i0 + nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        v12[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.activation(op=np.exp, data=v10[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], scale=v7[i0, nl.arange(128)[:, None], i1], mask=None, dtype=np.float32)
        v13[i0, i1, i2, 0, nl.arange(1)[:, None], nl.arange(512)[None, :]] = nl.load(v4[i1 + nl.arange(1)[:, None], 512*i2 + nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        v14[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.broadcast_to(v13[i0, i1, i2, 0, nl.arange(1)[:, None], nl.arange(512)[None, :]], shape=(128, 512))
        v15[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_tensor(v10[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], v11[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], op=np.multiply, mask=None, dtype=np.float32)
        v16[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_tensor(v15[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], v14[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], op=np.multiply, mask=None, dtype=np.float32)
        v17[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nki.isa.tensor_tensor_scan(v12[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], v16[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], initial=v9, op0=np.multiply, op1=np.add, mask=None, dtype=np.float32)
        v9[nl.arange(128)[:, None], nl.arange(1)[None, :]] = nl.copy(v17[i0, i1, i2, nl.arange(128)[:, None], 511 + nl.arange(1)[None, :]], dtype=np.float32, mask=None)
        v13[i0, i1, i2, 1, nl.arange(1)[:, None], nl.arange(512)[None, :]] = nl.load(v5[i1 + nl.arange(1)[:, None], 512*i2 + nl.arange(512)[None, :]], dtype=np.float32, mask=None)
        v18[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.broadcast_to(v13[i0, i1, i2, 1, nl.arange(1)[:, None], nl.arange(512)[None, :]], shape=(128, 512))
        v19[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_tensor(v17[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], v18[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]], op=np.multiply, mask=None, dtype=np.float32)
        v8[i0, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]] += v19[i0, i1, i2, nl.arange(128)[:, None], nl.arange(512)[None, :]]
        ''' end loop i2 '''
      ''' end loop i1 '''
    for i3 in nl.affine_range(4):
      nl.store(v6[128*i0 + nl.arange(128)[:, None], 512*i3 + nl.arange(512)[None, :]], value=v8[i0, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=None)
    ''' end loop i0 '''
  return v6
