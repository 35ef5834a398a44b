import numpy as np

C, H, W, K, S = 200, 16, 16, 3, 2


def get_inputs():
    return [np.random.normal(size=(C, H, W)).astype(np.float32)]


def forward(x):
    ho, wo = (H - K) // S + 1, (W - K) // S + 1
    out = np.full((C, ho, wo), -np.inf, dtype=np.float32)
    for kh in range(K):
        for kw in range(K):
            out = np.maximum(out, x[:, kh:kh + S * (ho - 1) + 1:S, kw:kw + S * (wo - 1) + 1:S])
    return out


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
