import numpy as np
import torch.nn.functional as F
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=F.relu(nl.load(x)))
    return out


kernel(np.zeros((128, 4), dtype=np.float32))
