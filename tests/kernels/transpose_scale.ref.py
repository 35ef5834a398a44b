import numpy as np

# The task of transpose_scale_{tiles,grid,api}.py and transpose_multiply_rows.py: RMSNorm of the
# rows of x (no epsilon), scaled by gamma per column, times w.
M = 256
K = 256
N = 1024


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(M, K)).astype(np.float32)
    w = np.random.normal(loc=0, scale=1.0, size=(K // 128, 128, N)).astype(np.float32)
    g = np.random.normal(loc=1, scale=0.5, size=(K, 1)).astype(np.float32)
    return [x, w, g]


def forward(x, w, g):
    rms = np.sqrt(np.mean(np.square(x), axis=1, keepdims=True))
    return (x / rms * g.reshape(1, K)) @ w.reshape(K, N)


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
