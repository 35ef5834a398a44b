import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(v1):
  # p13_trio_softmax_isa's program as a decompiler prints it: names v1..vN, loop markers, index
  # grids offset per iteration, nl.* calls with the operands as grid views.
  v2 = nl.ndarray((256, 512), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  ip = nl.arange(128)[:, None]
  jf = nl.arange(512)[None, :]
  j1 = nl.arange(1)[None, :]
  ''' begin loop i0 '''
  for i0 in nl.affine_range(2):
    v3 = nl.load(v1[128 * i0 + ip, jf])
    v4 = nl.max(v3[ip, jf], axis=[1], keepdims=True)
    v5 = nl.subtract(v3[ip, jf], v4[ip, j1])
    v6 = nl.exp(v5[ip, jf])
    v7 = nl.sum(v6[ip, jf], axis=[1], keepdims=True)
    v8 = nl.divide(v6[ip, jf], v7[ip, j1])
    nl.store(v2[128 * i0 + ip, jf], value=v8[ip, jf])
    ''' end loop i0 '''
  return v2
