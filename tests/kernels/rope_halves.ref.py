import numpy as np

# The reference of tests/kernels/rope_halves_*.py: nkibench/reference/rope_single_freq_apply_*'s
# rotation at a test size, x (D, S), cos / sin (D / 2, S).
D = 128
S = 8192


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(D, S)).astype(np.float32)
    cos = np.random.normal(loc=0, scale=1.0, size=(D // 2, S)).astype(np.float32)
    sin = np.random.normal(loc=0, scale=1.0, size=(D // 2, S)).astype(np.float32)
    return [x, cos, sin]


def forward(x, cos, sin):
    half = D // 2
    x0 = x[:half, :]
    x1 = x[half:, :]
    return np.concatenate([x0 * cos - x1 * sin, x0 * sin + x1 * cos], axis=0)


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
