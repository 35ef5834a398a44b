import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(v1, v2):
  # decompiled ragged-width kernel: 300 columns as 3 blocks of 128 with a mask on the last,
  # index grids offset per block (`jf + 128 * i1`), a bf16 intermediate block ndarray, the
  # scale row loaded once into a (1, 300) tile and broadcast per block.
  import numpy as np2
  v3 = nl.ndarray((128, 300), dtype=np2.float32, name='out', buffer=nl.shared_hbm)
  ip = nl.arange(128)[:, None]
  jf = nl.arange(128)[None, :]
  v4 = nl.ndarray((3, nl.par_dim(128), 128), dtype=nl.bfloat16, name='xb', buffer=nl.sbuf)
  v5 = nl.zeros((nl.par_dim(1), 384), dtype=np2.float32, name='scale_row', buffer=nl.sbuf)
  v5[nl.arange(1)[:, None], nl.arange(300)[None, :]] = nl.load(v2[nl.arange(1)[:, None], nl.arange(300)[None, :]])
  ''' begin loop i1 '''
  for i1 in nl.affine_range(3):
    v4[i1, ip, jf] = nl.load(v1[ip, jf + 128 * i1], dtype=nl.bfloat16, mask=(jf + 128 * i1 < 300))
    v6 = nl.broadcast_to(v5[nl.arange(1)[:, None], jf + 128 * i1], shape=(128, 128))
    v7 = nl.multiply(v4[i1, ip, jf], v6, dtype=np2.float32, mask=(jf + 128 * i1 < 300))
    nl.store(v3[ip, jf + 128 * i1], value=v7, mask=(jf + 128 * i1 < 300))
    ''' end loop i1 '''
  return v3
