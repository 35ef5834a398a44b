# Stanford CS149 Asst 4 (2025), part 1, matrix_transpose (Trn2, FP32, 1024 x 1024).
# Source: xaviergonzalez/asst4-trainium2@d1552616 part1/kernels.py, measured in writeup.md;
# trainium-measurements.md §1.9: 64 tiles of 128 x 128, each loaded, transposed on the Tensor
# Engine into PSUM, copied to SBUF and stored at the transposed position.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.compiler.skip_middle_end_transformations
@nki.jit
def matrix_transpose(a_tensor):
    M, N = a_tensor.shape
    out = nl.ndarray((N, M), dtype=a_tensor.dtype, buffer=nl.hbm)
    tile_dim = nl.tile_size.pmax  # this should be 128

    assert M % tile_dim == N % tile_dim == 0, "Matrix dimensions not divisible by tile dimension!"

    for m in range(M // tile_dim):
        for n in range(N // tile_dim):
            a_tile = nl.ndarray((tile_dim, tile_dim), dtype=a_tensor.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=a_tile, src=a_tensor[m * tile_dim:(m + 1) * tile_dim, n * tile_dim:(n + 1) * tile_dim])
            a_t_psum = nisa.nc_transpose(a_tile)
            a_t = nisa.tensor_copy(a_t_psum)
            nisa.dma_copy(dst=out[n * tile_dim:(n + 1) * tile_dim, m * tile_dim:(m + 1) * tile_dim], src=a_t)

    return out
