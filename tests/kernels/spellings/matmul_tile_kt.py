import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(xT, w):
  # xT.T @ w with the K sum accumulated in PSUM, the K blocks of both operands kept as the middle
  # dim of one [128, KT, *] tile (`xs[:, kb, :]`). Same program as matmul_nc_matmul.py, which keeps
  # them in a block-dim buffer `nl.ndarray((KT, nl.par_dim(128), *))`.
  K, M = xT.shape
  _, N = w.shape
  KT = K // 128
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  xs = nl.ndarray((128, KT, M), dtype=xT.dtype, buffer=nl.sbuf)
  ws = nl.ndarray((128, KT, N), dtype=w.dtype, buffer=nl.sbuf)
  for kb in nl.affine_range(KT):
    xs[:, kb, :] = nl.load(xT[kb * 128:(kb + 1) * 128, :])
    ws[:, kb, :] = nl.load(w[kb * 128:(kb + 1) * 128, :])
  for mb in nl.affine_range(M // 128):
    acc = nl.zeros((128, N), dtype=nl.float32, buffer=nl.psum)
    for kb in nl.affine_range(KT):
      acc += nisa.nc_matmul(xs[:, kb, mb * 128:(mb + 1) * 128], ws[:, kb, :])
    nl.store(out[mb * 128:(mb + 1) * 128, :], value=acc)
  return out
