# LayerNorm tutorial v1 (nki.language APIs): a ragged last row tile under masks, nl.mean over a
# free axis giving a per-partition vector, tile + Python float, (1, F) parameters loaded through
# an HBM reshape view and broadcast across partitions.
import math
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def nki_layernorm_kernel_v1(input_tensor, epsilon, gamma_vector, beta_vector):
  """Computes LayerNorm.
    Used nki.language APIs.
  """
  output_tensor = nl.ndarray(input_tensor.shape, dtype=input_tensor.dtype,
                             buffer=nl.shared_hbm)

  # Ensure that the shapes of tensors match
  assert input_tensor.shape[1] == gamma_vector.shape[0] == beta_vector.shape[0]

  # Generate tile indices for loading/storing data
  i_p_io = nl.arange(nl.tile_size.pmax)[:, None]
  i_f_io = nl.arange(input_tensor.shape[1])[None, :]
  i_p_param = nl.arange(1)[:, None]

  # Number of rows in the input tensor
  num_rows = input_tensor.shape[0]

  # Load gamma and beta, which will be reused across rows/tiles of input_tensor
  gamma_sb = nl.load(gamma_vector.reshape((1, gamma_vector.shape[0]))[i_p_param, i_f_io])
  beta_sb = nl.load(beta_vector.reshape((1, beta_vector.shape[0]))[i_p_param, i_f_io])

  # Process 128 rows at a time due to 128-partition tile size limitation
  for i in nl.affine_range(math.ceil(input_tensor.shape[0]/nl.tile_size.pmax)):

    # Load input data from external memory to on-chip memory
    input_sb = nl.load(input_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io],
                       mask=(i * nl.tile_size.pmax + i_p_io < num_rows))

    # Compute element-wise mean and variance
    mean = nl.mean(input_sb, axis=1)
    # Subtract mean from input
    shifted = nl.subtract(input_sb, mean)
    var = nl.mean(nl.square(shifted), axis=1)

    # Compute element-wise inverse of standard deviation
    rstd_sb = nl.rsqrt(var + epsilon)

    # Scale the shifted input by the inverse of standard deviation
    # Apply 'gamma' and 'beta'
    norm_sb = nl.multiply(shifted, rstd_sb)
    out_sb = nl.multiply(norm_sb, gamma_sb.broadcast_to((nl.tile_size.pmax, gamma_vector.shape[0])))
    out_sb = nl.add(out_sb, beta_sb.broadcast_to((nl.tile_size.pmax, beta_vector.shape[0])))

    # Store output to HBM
    nl.store(output_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io], value=out_sb,
             mask=(i * nl.tile_size.pmax + i_p_io < num_rows))

  return output_tensor


kernel = nki_layernorm_kernel_v1
