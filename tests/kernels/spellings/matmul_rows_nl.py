import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, w):
  # x @ w with x in rows ([128, 128] blocks of x, not of x.T), each product spelt `nl.matmul(x, y)`
  # without transpose_x: "the compiler inserts a transpose of x first (nc_matmul(transpose(x), y))"
  # (nki-language.md 7.6). Same program as matmul_rows_isa.py, which spells that transpose.
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
      acc += nl.matmul(xs[:, kb * 128:(kb + 1) * 128], ws[kb])
    nl.store(out[mb * 128:(mb + 1) * 128, :], value=acc)
  return out
