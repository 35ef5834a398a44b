import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(xT, w):
  # xT.T @ w with the K sum written out as a Python loop over the blocks: `y = y + product`
  # into a fresh tile each time, starting from the int 0 as sum() does. Same program as
  # matsum_generator.py.
  K, M = xT.shape
  _, N = w.shape
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  w_blocks = [nl.load(w[kb * 128:(kb + 1) * 128, :]) for kb in range(K // 128)]
  for mb in nl.affine_range(M // 128):
    x_blocks = [nl.load(xT[kb * 128:(kb + 1) * 128, mb * 128:(mb + 1) * 128]) for kb in range(K // 128)]
    y = 0
    for xb, wb in zip(x_blocks, w_blocks):
      y = y + nl.matmul(xb, wb, transpose_x=True)
    nl.store(out[mb * 128:(mb + 1) * 128, :], value=y)
  return out
