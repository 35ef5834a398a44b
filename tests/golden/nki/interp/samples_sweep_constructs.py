# nki-language.md 1.6 (constructs only in nki-samples kernels): SPMD grids with spmd_dim/nc, 5-d mgrid with .p/.x, HBM reshape in and out, closures writing outer tiles, tile lists, direct allocation, directives.
import math
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.compiler as ncc
from neuronxcc.nki.language import par_dim


class SBufAllocator:
    def __init__(self, base):
        self.next = base

    def alloc(self, n):
        addr = self.next
        self.next += n
        return addr


@nki.jit
def grid_kernel(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(1)
    rows = a.shape[0] // (nl.num_programs(0) * nl.num_programs(1))
    r0 = (i * nl.num_programs(1) + j) * rows
    t = nl.load(a[r0:r0 + rows, :])
    nl.store(out[r0:r0 + rows, :], value=t)
    return out


@nki.compiler.skip_middle_end_transformations
@nki.jit
def pool(src_arr, k: int = 2):
    n, c, h, w = src_arr.shape
    src_arr = src_arr.reshape((n * c, h, w))
    h2, w2 = h // k, w // k
    dst_arr = nl.ndarray((n * c, h2, w2), dtype=src_arr.dtype, buffer=nl.shared_hbm)
    ip, ih, iw = nl.mgrid[0:n * c, 0:h2, 0:w2]
    g = nl.mgrid[0:n * c, 0:h2, 0:k, 0:w2, 0:k]
    p, a_, b_, c_, d_ = g
    tile = nl.load(src_arr[g.p, g.x * k + b_, c_ * k + d_])
    m = nl.max(tile, axis=[2, 4])
    nl.store(dst_arr[ip, ih, iw], value=m)
    return dst_arr.reshape((n, c, h2, w2))


@nki.jit
def closures(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((par_dim(128), a.shape[1]), dtype=nl.float32, buffer=nl.sbuf)
    tiles = []
    def load_q(i_tile):
        acc[...] = nl.load(a[nl.ds(i_tile * 128, 128), :])
    for i in nl.sequential_range(a.shape[0] // 128, directives=ncc.no_reorder()):
        load_q(i)
        tiles.append(nl.exp(acc) if i == 0 else nl.copy(acc))
        nl.store(out[nl.ds(i * 128, 128), :], value=tiles[i])
    return out


@nki.jit
def psum_alloc(a, b):
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((2, par_dim(128), 128), dtype=nl.float32, buffer=ncc.psum.mod_alloc(base_bank=0, num_bank_tiles=(2,)))
    sb = nl.ndarray((par_dim(128), 128), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(1,)))
    for i in nl.affine_range(2, precise_schedule=True):
        ps[i] = nisa.nc_matmul(nl.load(a), nl.load(b))
    sb[...] = nl.add(ps[0], ps[1])
    nl.store(out, value=sb)
    return out


x = np.arange(256 * 8, dtype=np.float32).reshape(256, 8)
print(np.array_equal(grid_kernel[2, 2](x), x))
print(np.array_equal(grid_kernel[nl.spmd_dim(2, nl.nc(2)), 2](x), x))
img = np.random.rand(2, 64, 4, 4).astype(np.float32)
want = img.reshape(2, 64, 2, 2, 2, 2).max(axis=(3, 5))
print(np.allclose(pool(img), want), pool(img).shape)
y = np.random.rand(256, 8).astype(np.float32)
r = closures(y)
print(np.allclose(r[:128], np.exp(y[:128]), rtol=1e-5), np.allclose(r[128:], y[128:]))
a = np.random.rand(128, 128).astype(np.float32)
print(np.allclose(psum_alloc(a, a), 2 * a.T @ a, rtol=1e-4))
print(math.ceil(2.5), SBufAllocator(0).alloc(4))
