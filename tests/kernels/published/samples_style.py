"""
Written for accelopt in the layout of the nki-samples repository.

An nki-samples-style kernel file: the kernel, a profiling wrapper, and a pytest test that checks
it against torch. For examples/add; runs unchanged (the wrapper only launches the kernel).
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch_neuronx import nki_jit
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from neuronxcc.nki.language import par_dim

torch.manual_seed(0)


@nki.jit
def nki_tensor_add(a_input, b_input):
  """Element-wise add of two [rows, cols] tensors, 128 rows per tile."""
  c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
  num_tiles = a_input.shape[0] // nl.tile_size.pmax
  for t in nl.affine_range(num_tiles):
    rows = nl.ds(t * nl.tile_size.pmax, nl.tile_size.pmax)
    a_tile = nl.ndarray((par_dim(nl.tile_size.pmax), a_input.shape[1]), dtype=a_input.dtype, buffer=nl.sbuf)
    a_tile[...] = nl.load(a_input[rows, :])
    b_tile = nl.load(b_input[rows, :])
    nl.store(c_output[rows, :], value=nl.add(a_tile, b_tile))
  return c_output


@nki.profile(working_directory="/tmp/profiles", save_neff_name="add.neff", save_trace_name="add.ntff")
def profile_tensor_add(a_input, b_input):
  return nki_tensor_add(a_input, b_input)


class TestTensorAdd:

  @pytest.mark.simulation
  @pytest.mark.parametrize("rows,cols", [(256, 512), (512, 1024)])
  def test_nki_tensor_add(self, rows, cols):
    a = torch.rand((rows, cols), dtype=torch.float32)
    b = torch.rand((rows, cols), dtype=torch.float32)
    out = nki.simulate_kernel(nki_tensor_add, a.numpy(), b.numpy())
    assert torch.allclose(torch.from_numpy(out), a + b)
