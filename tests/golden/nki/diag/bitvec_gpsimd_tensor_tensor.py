# A bitvec tensor_tensor placed on GpSimd: bitvec operators run on the Vector Engine only
# (nki-language.md 9.1, engines column), the rule nki::lib::runs_on gives the check and the
# built-in agent's engine moves alike.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def mix(keys):
    out = nl.ndarray(keys.shape, dtype=nl.uint32, buffer=nl.shared_hbm)
    h = nl.load(keys)
    nl.store(out, value=nisa.tensor_tensor(h, h, op=np.bitwise_xor, engine=nisa.gpsimd_engine))
    return out


mix(np.arange(128 * 4, dtype=np.uint32).reshape(128, 4))
