# Small-instruction initiation interval (NC-v2), trainium-measurements.md §1.10:
# aws-neuron-sdk@81ce03ae nki/deep-dives/nki_perf_guide.rst, Opt #5a: back-to-back dependent
# ScalarE activation instructions that read one element per partition. The guide gives the
# measurement, not the kernel; this is the pattern it describes (legacy API, Trn1 era).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

CHAIN = 4096


@nki.jit
def dependent_activations(x):
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.load(x)
  for i in nl.sequential_range(CHAIN):
    t = nisa.activation(op=np.tanh, data=t)
  nl.store(out, value=t)
  return out
