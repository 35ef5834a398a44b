import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt
from neuronxcc.nki import trace
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(v1, v2, v3, v4):
  # adamw M=10944 N=2048 (theta, grad, m, v): 86 row tiles of 128 (the last masked to 64 rows),
  # 2 column chunks of 1024, four loads, fourteen elementwise instructions per 512 half, one store.
  import numpy as np
  import neuronxcc.nki as nki
  import neuronxcc.nki.language as nl
  import neuronxcc.nki.isa as nisa
  from neuronxcc.nki.language import par_dim
  v5 = nl.ndarray((10944, 2048), dtype=np.float32, name='out', buffer=nl.shared_hbm)
  v6 = nisa.memset(shape=(128, 1), value=np.dtype(np.uint16).type(0), dtype=np.float32, mask=None, engine=nki.isa.unknown_engine)
  v7 = nl.ndarray((86, 2, 4, par_dim(128), 1024), dtype=np.float32, name='inputs', buffer=nl.sbuf)
  v8 = nl.ndarray((86, 2, 2, 13, par_dim(128), 512), dtype=np.float32, name='tmp', buffer=nl.sbuf)
  v9 = nl.ndarray((86, 2, par_dim(128), 1024), dtype=np.float32, name='res', buffer=nl.sbuf)
  for i0 in nl.affine_range(86):
    for i1 in nl.affine_range(2):
      v7[i0, i1, 0, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v1[128*i0 + nl.arange(128)[:, None], 1024*i1 + nl.arange(1024)[None, :]], dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0))
      v7[i0, i1, 1, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v2[128*i0 + nl.arange(128)[:, None], 1024*i1 + nl.arange(1024)[None, :]], dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0))
      v7[i0, i1, 2, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v3[128*i0 + nl.arange(128)[:, None], 1024*i1 + nl.arange(1024)[None, :]], dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0))
      v7[i0, i1, 3, nl.arange(128)[:, None], nl.arange(1024)[None, :]] = nl.load(v4[128*i0 + nl.arange(128)[:, None], 1024*i1 + nl.arange(1024)[None, :]], dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0))
      for i2 in nl.affine_range(2):
        # m' = 0.9 m + 0.1 g
        v8[i0, i1, i2, 0, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_scalar(data=v7[i0, i1, 2, nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], op0=np.multiply, operand0=np.dtype(np.float32).type(0.9), reverse0=False, dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), engine=nki.isa.unknown_engine)
        v8[i0, i1, i2, 1, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_scalar(data=v7[i0, i1, 1, nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], op0=np.multiply, operand0=np.dtype(np.float32).type(0.1), reverse0=False, dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), engine=nki.isa.unknown_engine)
        v8[i0, i1, i2, 2, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.add(v8[i0, i1, i2, 0, nl.arange(128)[:, None], nl.arange(512)[None, :]], v8[i0, i1, i2, 1, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), dtype=np.float32)
        # v' = 0.999 v + 0.001 g^2
        v8[i0, i1, i2, 3, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.multiply(v7[i0, i1, 1, nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], v7[i0, i1, 1, nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), dtype=np.float32)
        v8[i0, i1, i2, 4, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_scalar(data=v8[i0, i1, i2, 3, nl.arange(128)[:, None], nl.arange(512)[None, :]], op0=np.multiply, operand0=np.dtype(np.float32).type(0.001), reverse0=False, dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), engine=nki.isa.unknown_engine)
        v8[i0, i1, i2, 5, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_scalar(data=v7[i0, i1, 3, nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], op0=np.multiply, operand0=np.dtype(np.float32).type(0.999), reverse0=False, dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), engine=nki.isa.unknown_engine)
        v8[i0, i1, i2, 6, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.add(v8[i0, i1, i2, 5, nl.arange(128)[:, None], nl.arange(512)[None, :]], v8[i0, i1, i2, 4, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), dtype=np.float32)
        # step = 0.01 m' / (sqrt(1000 v') + 1e-8)
        v8[i0, i1, i2, 7, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.activation(op=np.sqrt, data=v8[i0, i1, i2, 6, nl.arange(128)[:, None], nl.arange(512)[None, :]], bias=v6[nl.arange(128)[:, None], 0], scale=1000.0, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), dtype=np.float32)
        v8[i0, i1, i2, 9, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_scalar(data=v8[i0, i1, i2, 7, nl.arange(128)[:, None], nl.arange(512)[None, :]], op0=nl.add, operand0=np.dtype(np.float32).type(1e-08), op1=nl.reciprocal, operand1=1.0, mask=-128*i0 - nl.arange(128)[:, None] + 10943 >= 0, dtype=np.float32)
        v8[i0, i1, i2, 10, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.multiply(v8[i0, i1, i2, 2, nl.arange(128)[:, None], nl.arange(512)[None, :]], v8[i0, i1, i2, 9, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), dtype=np.float32)
        v8[i0, i1, i2, 11, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_scalar(data=v8[i0, i1, i2, 10, nl.arange(128)[:, None], nl.arange(512)[None, :]], op0=np.multiply, operand0=np.dtype(np.float32).type(0.01), reverse0=False, dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), engine=nki.isa.unknown_engine)
        # theta (1 - 1e-5) - step
        v8[i0, i1, i2, 12, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nisa.tensor_scalar(data=v7[i0, i1, 0, nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]], op0=np.multiply, operand0=np.dtype(np.float32).type(0.99999), reverse0=False, dtype=np.float32, mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), engine=nki.isa.unknown_engine)
        v9[i0, i1, nl.arange(128)[:, None], 512*i2 + nl.arange(512)[None, :]] = nl.subtract(v8[i0, i1, i2, 12, nl.arange(128)[:, None], nl.arange(512)[None, :]], v8[i0, i1, i2, 11, nl.arange(128)[:, None], nl.arange(512)[None, :]], mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0), dtype=np.float32)
        ''' end loop i2 '''
      nl.store(v5[128*i0 + nl.arange(128)[:, None], 1024*i1 + nl.arange(1024)[None, :]], value=v9[i0, i1, nl.arange(128)[:, None], nl.arange(1024)[None, :]], mask=(-128*i0 - nl.arange(128)[:, None] + 10943 >= 0))
      ''' end loop i1 '''
    ''' end loop i0 '''
  return v5
