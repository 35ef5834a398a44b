# Tensor addition tutorial (nki-samples tutorials/tensor_addition): one 128x512 tile per SPMD
# program, indices built from nl.program_id, launched over a 2-D grid by a host-side wrapper.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def nki_tensor_add_kernel_(a_input, b_input):
    """NKI kernel to compute element-wise addition of two input tensors.

    This kernel assumes strict input/output sizes can be uniformly tiled to [128,512].
    """
    # Create output tensor shared between all SPMD instances as result tensor
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)

    # Calculate tile offsets based on current 'program'
    offset_i_x = nl.program_id(0) * 128
    offset_i_y = nl.program_id(1) * 512

    # Generate tensor indices to index tensors a and b
    ix = offset_i_x + nl.arange(128)[:, None]
    iy = offset_i_y + nl.arange(512)[None, :]

    # Load input data from device memory (HBM) to on-chip memory (SBUF)
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])

    # compute a + b
    c_tile = a_tile + b_tile

    # store the addition results back to device memory (c_output)
    nl.store(c_output[ix, iy], value=c_tile)

    # Transfer the ownership of `c_output` to the caller
    return c_output


def nki_tensor_add(a_input, b_input):
    """NKI kernel caller to compute element-wise addition of two input tensors."""
    grid_x = a_input.shape[0] // 128
    grid_y = a_input.shape[1] // 512
    return nki_tensor_add_kernel_[grid_x, grid_y](a_input, b_input)


kernel = nki_tensor_add
