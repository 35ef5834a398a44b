import numpy as np
import os
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

os.environ["NEURON_RT_LOG_LEVEL"] = "INFO"  # top-level harness code: does nothing


@nki.jit
def kernel(x):
    os.system("touch /tmp/accelopt_host_only_ran")
    return x


kernel(np.zeros((128, 4), dtype=np.float32))
