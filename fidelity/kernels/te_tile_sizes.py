# TE tile-size micro-benchmark (Trn2, BF16): 2,048 nc_matmul on tiles loaded once.
# Source: aws-neuron/neuron-agentic-development@1598b060 skills/neuron-nki-profile-querying/
#         references/investigations/te_inefficiency.md, as described in trainium-measurements.md
#         §1.5 (the investigation gives the loop structure and the tile shapes, not the file).
# New NKI API.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def te_full_tiles(stationary, moving):
  """V1: every matmul is K=128, M=128, N=512."""
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  s = nl.ndarray((128, 128), dtype=stationary.dtype, buffer=nl.sbuf)
  m = nl.ndarray((128, 512), dtype=moving.dtype, buffer=nl.sbuf)
  nisa.dma_copy(dst=s, src=stationary)
  nisa.dma_copy(dst=m, src=moving)
  res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
  for i in nl.affine_range(4):
    for j in nl.affine_range(512):
      nisa.nc_matmul(dst=res, stationary=s, moving=m)
  res_sb = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
  nisa.tensor_copy(dst=res_sb, src=res)
  nisa.dma_copy(dst=out, src=res_sb)
  return out


@nki.jit
def te_mixed_tiles(stationary, moving):
  """V0: four sections of 512 matmuls: M=32, N=64, K=32, then full tiles."""
  out_m32 = nl.ndarray((32, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  out_n64 = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
  out_k32 = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  out_full = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  s = nl.ndarray((128, 128), dtype=stationary.dtype, buffer=nl.sbuf)
  m = nl.ndarray((128, 512), dtype=moving.dtype, buffer=nl.sbuf)
  nisa.dma_copy(dst=s, src=stationary)
  nisa.dma_copy(dst=m, src=moving)

  res_m32 = nl.ndarray((32, 512), dtype=nl.float32, buffer=nl.psum)
  for j in nl.affine_range(512):
    nisa.nc_matmul(dst=res_m32, stationary=s[0:128, 0:32], moving=m)
  res_n64 = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)
  for j in nl.affine_range(512):
    nisa.nc_matmul(dst=res_n64, stationary=s, moving=m[0:128, 0:64])
  res_k32 = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
  for j in nl.affine_range(512):
    nisa.nc_matmul(dst=res_k32, stationary=s[0:32, 0:128], moving=m[0:32, 0:512])
  res_full = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
  for j in nl.affine_range(512):
    nisa.nc_matmul(dst=res_full, stationary=s, moving=m)

  for res, out, shape in ((res_m32, out_m32, (32, 512)), (res_n64, out_n64, (128, 64)),
                          (res_k32, out_k32, (128, 512)), (res_full, out_full, (128, 512))):
    sb = nl.ndarray(shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=sb, src=res)
    nisa.dma_copy(dst=out, src=sb)
  return out_m32, out_n64, out_k32, out_full
