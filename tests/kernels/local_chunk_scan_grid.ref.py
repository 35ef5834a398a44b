# local_chunk_scan_grid.py's numpy reference: out[p, j] = sum_s x[p, j] * w[s, j].
# `accelopt eval --reference tests/kernels/local_chunk_scan_grid.ref.py --kernel tests/kernels/local_chunk_scan_grid.py`.
import numpy as np


def get_inputs():
    x = np.random.normal(size=(256, 3072)).astype(np.float32)
    w = np.random.normal(size=(4, 3072)).astype(np.float32)
    return [x, w]


def forward(x, w):
    out = np.zeros_like(x)
    for s in range(w.shape[0]):
        out += x * w[s][None, :]
    return out


def transform_to_nki_inputs(inputs):
    return inputs


# local_chunk_scan_grid.py's numpy reference: out[p, j] = sum_s x[p, j] * w[s, j].
# `accelopt eval --reference tests/kernels/local_chunk_scan_grid.ref.py --kernel tests/kernels/local_chunk_scan_grid.py`.
import numpy as np


def get_inputs():
    x = np.random.normal(size=(256, 3072)).astype(np.float32)
    w = np.random.normal(size=(4, 3072)).astype(np.float32)
    return [x, w]


def forward(x, w):
    out = np.zeros_like(x)
    for s in range(w.shape[0]):
        out += x * w[s][None, :]
    return out


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    outputs = []
    for v, r in zip(k_res, refs):
        if hasattr(r, "shape"):
            outputs.append(np.reshape(v, r.shape))
        else:
            outputs.append(v)
    return outputs
