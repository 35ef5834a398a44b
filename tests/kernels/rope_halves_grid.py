# Legacy-grid style (v1..vN, index grids, block buffers declared up front and indexed by the loop,
# literal sizes): the nest of rope_halves_tiles.py, x (128, 8192), cos / sin (64, 8192), one block
# of `inputs` / `tmp` per 2048-column chunk.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2, v3):
  v4 = nl.ndarray((128, 8192), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v5 = nl.ndarray((4, 4, par_dim(64), 2048), dtype=np.float32, name='inputs', buffer=nl.sbuf)
  v6 = nl.ndarray((4, 6, par_dim(64), 2048), dtype=np.float32, name='tmp', buffer=nl.sbuf)
  for i0 in nl.affine_range(4):
    v5[i0, 0, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.load(v1[nl.arange(64)[:, None], 2048*i0 + nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    v5[i0, 1, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.load(v1[64 + nl.arange(64)[:, None], 2048*i0 + nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    v5[i0, 2, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.load(v2[nl.arange(64)[:, None], 2048*i0 + nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    v5[i0, 3, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.load(v3[nl.arange(64)[:, None], 2048*i0 + nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    v6[i0, 0, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.multiply(v5[i0, 0, nl.arange(64)[:, None], nl.arange(2048)[None, :]], v5[i0, 2, nl.arange(64)[:, None], nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    v6[i0, 1, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.multiply(v5[i0, 1, nl.arange(64)[:, None], nl.arange(2048)[None, :]], v5[i0, 3, nl.arange(64)[:, None], nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    v6[i0, 2, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.subtract(v6[i0, 0, nl.arange(64)[:, None], nl.arange(2048)[None, :]], v6[i0, 1, nl.arange(64)[:, None], nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    nl.store(v4[nl.arange(64)[:, None], 2048*i0 + nl.arange(2048)[None, :]], value=v6[i0, 2, nl.arange(64)[:, None], nl.arange(2048)[None, :]], mask=None)
    v6[i0, 3, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.multiply(v5[i0, 0, nl.arange(64)[:, None], nl.arange(2048)[None, :]], v5[i0, 3, nl.arange(64)[:, None], nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    v6[i0, 4, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.multiply(v5[i0, 1, nl.arange(64)[:, None], nl.arange(2048)[None, :]], v5[i0, 2, nl.arange(64)[:, None], nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    v6[i0, 5, nl.arange(64)[:, None], nl.arange(2048)[None, :]] = nl.add(v6[i0, 3, nl.arange(64)[:, None], nl.arange(2048)[None, :]], v6[i0, 4, nl.arange(64)[:, None], nl.arange(2048)[None, :]], dtype=np.float32, mask=None)
    nl.store(v4[64 + nl.arange(64)[:, None], 2048*i0 + nl.arange(2048)[None, :]], value=v6[i0, 5, nl.arange(64)[:, None], nl.arange(2048)[None, :]], mask=None)
    ''' end loop i0 '''
  return v4
