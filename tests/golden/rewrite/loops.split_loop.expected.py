# inputs: 128x512 128x512
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    out2 = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    out3 = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    out4 = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    out5 = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    offset = nl.load(b[:, 128:256])
    for i in nl.affine_range(4):
        # the same weights every iteration
        w = nl.load(b[:, 0:128])
        x = nl.load(a[:, i * 128:(i + 1) * 128])
        y = nl.multiply(x, w)
        nl.store(out[:, i * 128:(i + 1) * 128], value=y)
    for j in nl.affine_range(4):
        z = nl.load(a[:, j * 128:(j + 1) * 128])
        s = nl.add(z, offset)
        nl.store(out2[:, j * 128:(j + 1) * 128], value=s)
    for r in nl.affine_range(2):
        for c in nl.affine_range(2):
            t = nl.load(b[r * 64:(r + 1) * 64, c * 256:(c + 1) * 256])
            nl.store(out3[r * 64:(r + 1) * 64, c * 256:(c + 1) * 256], value=t)
    for k in nl.affine_range(2):
        p = nl.load(a[:, k * 256:(k + 1) * 256])
        nl.store(out4[:, k * 256:(k + 1) * 256], value=nl.exp(p))
    for k in nl.affine_range(2):
        q = nl.load(b[:, k * 256:(k + 1) * 256])
        nl.store(out5[:, k * 256:(k + 1) * 256], value=nl.add(q, q))
    return out, out2, out3, out4, out5
