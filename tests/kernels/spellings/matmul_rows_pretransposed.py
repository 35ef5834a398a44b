import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, w):
  # x @ w with each [128, 128] block of x loaded already transposed (`nl.load_transpose2d`) and
  # multiplied with `nl.matmul(..., transpose_x=True)`: no Tensor Engine transpose, a DMA transpose
  # instead. Computes what matmul_rows_nl.py computes; it is priced by what the DMA transpose is
  # published to cost, not the same.
  M, K = x.shape
  _, N = w.shape
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  ws = nl.ndarray((K // 128, nl.par_dim(128), N), dtype=w.dtype, buffer=nl.sbuf)
  for kb in nl.affine_range(K // 128):
    ws[kb] = nl.load(w[kb * 128:(kb + 1) * 128, :])
  for mb in nl.affine_range(M // 128):
    acc = nl.zeros((128, N), dtype=nl.float32, buffer=nl.psum)
    for kb in nl.affine_range(K // 128):
      xt = nl.load_transpose2d(x[mb * 128:(mb + 1) * 128, kb * 128:(kb + 1) * 128])
      acc += nl.matmul(xt, ws[kb], transpose_x=True)
    nl.store(out[mb * 128:(mb + 1) * 128, :], value=acc)
  return out
