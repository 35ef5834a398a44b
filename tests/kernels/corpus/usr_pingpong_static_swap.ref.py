import numpy as np

P, N, C = 128, 512, 128


def get_inputs():
    return [np.random.normal(size=(P, N)).astype(np.float32)]


def forward(x):
    out = np.zeros_like(x)
    prev = np.zeros((P, C), dtype=np.float32)
    for c in range(N // C):
        prev = (prev * np.float32(0.75) + x[:, c * C:(c + 1) * C]).astype(np.float32)
        out[:, c * C:(c + 1) * C] = prev
    return out


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
