import numpy as np

S = 256


def get_inputs():
    return [np.random.normal(size=(S, S)).astype(np.float32)]


def forward(scores):
    masked = np.where(np.tril(np.ones((S, S), dtype=bool)), scores, -np.inf)
    e = np.exp(masked - masked.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
