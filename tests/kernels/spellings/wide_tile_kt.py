import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(xT, w):
  # Per row tile, w's two 1024-column halves loaded slice by slice into the middle dim of one
  # [128, KT, 1024] tile each (`wa[:, kt, :]`). Same program as wide_block_dim.py, which keeps
  # the slices in block-dim buffers `nl.ndarray((KT, nl.par_dim(128), 1024))`.
  K, M = xT.shape
  _, N = w.shape
  KT = K // 128
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  for mb in nl.affine_range(M // 128):
    xs = nl.ndarray((128, KT, 128), dtype=xT.dtype, buffer=nl.sbuf)
    wa = nl.ndarray((128, KT, 1024), dtype=w.dtype, buffer=nl.sbuf)
    wb = nl.ndarray((128, KT, 1024), dtype=w.dtype, buffer=nl.sbuf)
    for kt in nl.affine_range(KT):
      xs[:, kt, :] = nl.load(xT[kt * 128:(kt + 1) * 128, mb * 128:(mb + 1) * 128])
      wa[:, kt, :] = nl.load(w[kt * 128:(kt + 1) * 128, 0:1024])
      wb[:, kt, :] = nl.load(w[kt * 128:(kt + 1) * 128, 1024:2048])
    for nb in nl.affine_range(2):
      acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
      for kt in nl.affine_range(KT):
        acc += nisa.nc_matmul(xs[:, kt, :], wa[:, kt, nb * 512:(nb + 1) * 512])
      nl.store(out[mb * 128:(mb + 1) * 128, nb * 512:(nb + 1) * 512], value=acc)
    for nb in nl.affine_range(2):
      acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
      for kt in nl.affine_range(KT):
        acc += nisa.nc_matmul(xs[:, kt, :], wb[:, kt, nb * 512:(nb + 1) * 512])
      nl.store(out[mb * 128:(mb + 1) * 128, 1024 + nb * 512:1024 + (nb + 1) * 512], value=acc)
  return out
