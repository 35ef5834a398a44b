# A number as the bias of nisa.activation: the bias is "a per-partition vector (P, 1)"
# (nki-language.md 8.2, 10.1, err_activation_bias_invalid_type); a scalar bias exists only from
# NeuronCore-v3 (12.2). `accelopt run` traces for NeuronCore-v2 (trn1), where it is refused.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def shifted_exp(x):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    e = nisa.activation(op=nl.exp, data=t, bias=0.5, scale=1.0)
    nl.store(out, value=e)
    return out


shifted_exp(np.zeros((128, 8), dtype=np.float32))
