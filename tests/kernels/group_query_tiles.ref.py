# The group_query_tiles{,_api}.py kernels' numpy reference (query heads 4, KV heads 2, 256 rows):
# `accelopt eval --reference tests/kernels/group_query_tiles.ref.py --kernel tests/kernels/group_query_tiles.py`.
import numpy as np

QH = 4
KH = 2
N = 256
P = 128
D = 64


def get_inputs():
    q = np.random.normal(loc=0, scale=0.1, size=(QH, N, D)).astype(np.float32)
    k = np.random.normal(loc=0, scale=0.1, size=(KH, P, D)).astype(np.float32)
    v = np.random.normal(loc=0, scale=0.1, size=(KH, P, D)).astype(np.float32)
    return [q, k, v]


def forward(q, k, v):
    g = QH // KH
    return np.stack([np.stack([(q[kv * g + j] @ k[kv].T) @ v[kv] for j in range(g)]) for kv in range(KH)])


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
