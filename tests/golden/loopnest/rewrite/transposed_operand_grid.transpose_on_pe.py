# A batched matmul whose stationary operand is read transposed straight from HBM: the index grid
# puts the contraction dim (the tensor's last, contiguous one) on the partitions and the rows on
# the free axis, so each element is its own DMA descriptor. transpose_on_pe loads the rows plainly
# and transposes them on the Tensor Engine instead.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    n_batch, n_rows, n_contract = a.shape
    n_cols = b.shape[2]
    result = nl.ndarray((n_batch, n_rows, n_cols), dtype=a.dtype, buffer=nl.shared_hbm)
    for bi in nl.affine_range(n_batch):
        b_tile = nl.load(b[bi])
        for r in nl.affine_range(n_rows // 128):
            a_t_rows = nl.load(src=a[bi, 128*r + nl.arange(128)[:, None], nl.arange(64)[None, :]])
            a_t = nl.copy(src=nisa.nc_transpose(data=a_t_rows))
            prod = nisa.nc_matmul(a_t, b_tile)
            nl.store(result[bi, 128 * r:128 * (r + 1), :], value=nl.copy(prod))
    return result
