# A bitvec tensor_scalar placed on the Scalar Engine: bitvec operators run on the Vector Engine
# only (nki-language.md 8.3), so the placement is refused (a rewrite that moves the instruction
# there must not pass the check).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def low_bits(keys):
    out = nl.ndarray(keys.shape, dtype=nl.uint32, buffer=nl.shared_hbm)
    h = nl.load(keys)
    nl.store(out, value=nisa.tensor_scalar(h, np.bitwise_and, np.uint32(63), engine=nisa.scalar_engine))
    return out


low_bits(np.arange(128 * 4, dtype=np.uint32).reshape(128, 4))
