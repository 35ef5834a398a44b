# A decaying running sum h_t = a_t * h_{t-1} + x_t along the free axis, legacy API: 200 rows as two
# row tiles of an nl.arange pair with a mask on the ragged second, nisa.tensor_tensor_scan(op0=
# np.multiply, op1=np.add, initial=0.0) over column chunks chained through `initial=` the previous
# chunk's last column in an nl.sequential_range, the carry a (128, 1) SBUF tile written by nl.copy.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

CH = 128


@nki.jit
def decay_scan(a, x):
    n, t_len = x.shape
    out = nl.ndarray((n, t_len), dtype=nl.float32, buffer=nl.shared_hbm)
    ip = nl.arange(128)[:, None]
    jf = nl.arange(CH)[None, :]
    for i in nl.affine_range((n + 127) // 128):
        rows = i * 128 + ip
        carry = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        for c in nl.sequential_range(t_len // CH):
            at = nl.load(a[rows, c * CH + jf], mask=(rows < n))
            xt = nl.load(x[rows, c * CH + jf], mask=(rows < n))
            h = nisa.tensor_tensor_scan(at, xt, initial=carry, op0=np.multiply, op1=np.add,
                                        mask=(rows < n))
            carry[...] = nl.copy(h[:, CH - 1:CH])
            nl.store(out[rows, c * CH + jf], value=h, mask=(rows < n))
    return out
