import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(xT, w):
  # xT.T @ w with the K sum gathered in an SBUF tile by `acc[...] = nl.loop_reduce(nl.matmul(...),
  # op=np.add, loop_indices=[kb])`, the tool-generated spelling of `acc += nl.matmul(...)`
  # (nki-language.md 7.7: "dest = op(dest, x)", the first execution writes x). Same program as
  # tests/golden/lower/nki/sbuf_accumulation.py; the compiler accumulates either in PSUM.
  K, M = xT.shape
  _, N = w.shape
  out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
  xs = nl.ndarray((K // 128, nl.par_dim(128), M), dtype=xT.dtype, buffer=nl.sbuf)
  ws = nl.ndarray((K // 128, nl.par_dim(128), N), dtype=w.dtype, buffer=nl.sbuf)
  for kb in nl.affine_range(K // 128):
    xs[kb] = nl.load(xT[kb * 128:(kb + 1) * 128, :])
    ws[kb] = nl.load(w[kb * 128:(kb + 1) * 128, :])
  for mb in nl.affine_range(M // 128):
    acc = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
    for kb in nl.affine_range(K // 128):
      acc[...] = nl.loop_reduce(nl.matmul(xs[kb, :, mb * 128:(mb + 1) * 128], ws[kb], transpose_x=True), op=np.add,
                                loop_indices=[kb], dtype=nl.float32)
    nl.store(out[mb * 128:(mb + 1) * 128, :], value=acc)
  return out
