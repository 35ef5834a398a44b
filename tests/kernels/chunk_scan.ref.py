# The chunk_scan_{tiles,grid,api}.py kernels' numpy reference (the mamba task's at C 256, M 2048, S 4):
# `accelopt eval --reference tests/kernels/chunk_scan.ref.py --kernel tests/kernels/chunk_scan_tiles.py`.
import numpy as np

M = 2048
C = 256
S = 4


def get_inputs():
    delta = np.random.normal(loc=0, scale=0.05, size=(C, M)).astype(np.float32)
    u = np.random.normal(loc=0, scale=0.05, size=(C, M)).astype(np.float32)
    a = np.random.normal(loc=0, scale=0.05, size=(C, S)).astype(np.float32)
    b = np.random.normal(loc=0, scale=0.05, size=(S, M)).astype(np.float32)
    c = np.random.normal(loc=0, scale=0.05, size=(S, M)).astype(np.float32)
    return [delta, u, a, b, c]


def forward(delta, u, a, b, c):
    delta_a = np.exp(delta[:, None, :] * a[:, :, None])
    delta_bu = delta[:, None, :] * b[None, :, :] * u[:, None, :]
    scan_res = np.ndarray((C, S, M), dtype=np.float32)
    for i in range(M):
        prev = scan_res[..., i - 1] if i > 0 else 0
        scan_res[..., i] = delta_a[..., i] * prev + delta_bu[..., i]
    return np.sum(c[None, :, :] * scan_res, axis=1)


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
