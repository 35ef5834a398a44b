# Legacy-grid style: an accumulator declared up front with a block dim over the row loop, zeroed
# per row inside the loop, accumulated over a state loop that loads a row-independent weight row
# (jam_rows must zero every row's block, not only the first's; found on mamba in this style).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(v1, v2):
  v3 = nl.ndarray((256, 512), dtype=np.float32, buffer=nl.shared_hbm)
  v4 = nl.zeros((2, nl.par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf)
  v5 = nl.ndarray((2, nl.par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf)
  for i0 in nl.affine_range(2):
    v4[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]] = 0.0
    v5[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load(v1[128*i0 + nl.arange(128)[:, None], nl.arange(512)[None, :]])
    for i1 in nl.static_range(4):
      w = nl.load(v2[i1 + nl.arange(1)[:, None], nl.arange(512)[None, :]])
      wb = nl.broadcast_to(w, shape=(128, 512))
      v4[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]] += nisa.tensor_tensor(v5[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]], wb, op=np.multiply)
    nl.store(v3[128*i0 + nl.arange(128)[:, None], nl.arange(512)[None, :]], value=v4[i0, nl.arange(128)[:, None], nl.arange(512)[None, :]])
  return v3
