import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
  # x @ w with x in rows, each [128, 128] block transposed on the Tensor Engine
  # (`nisa.nc_transpose`), copied to SBUF and used as the stationary operand of `nisa.nc_matmul`:
  # what nl.matmul(x, y) without transpose_x lowers to (nki-language.md 7.6). Same program as
  # matmul_rows_nl.py.
  M, K = x.shape
  _, N = w.shape
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  ws = nl.ndarray((K // 128, nl.par_dim(128), N), dtype=w.dtype, buffer=nl.sbuf)
  for kb in nl.affine_range(K // 128):
    ws[kb] = nl.load(w[kb * 128:(kb + 1) * 128, :])
  for mb in nl.affine_range(M // 128):
    xs = nl.load(x[mb * 128:(mb + 1) * 128, :])
    acc = nl.zeros((128, N), dtype=nl.float32, buffer=nl.psum)
    for kb in nl.affine_range(K // 128):
      xt = nl.copy(nisa.nc_transpose(xs[:, kb * 128:(kb + 1) * 128]), dtype=x.dtype)
      acc += nisa.nc_matmul(xt, ws[kb])
    nl.store(out[mb * 128:(mb + 1) * 128, :], value=acc)
  return out
