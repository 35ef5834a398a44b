import numpy as np

B, CIN, COUT, H, W, KH, KW = 1, 128, 128, 6, 10, 3, 2
TOLERANCE = 1e-4


def get_inputs():
    x = np.random.normal(size=(B, CIN, H, W)).astype(np.float32)
    w = np.random.normal(size=(COUT, CIN, KH, KW)).astype(np.float32)
    bias = np.random.normal(size=(COUT,)).astype(np.float32)
    return [x, w, bias]


def forward(x, w, bias):
    oh, ow = H - KH + 1, W - KW + 1
    out = np.zeros((B, COUT, oh, ow), dtype=np.float32)
    for kh in range(KH):
        for kw in range(KW):
            patch = x[:, :, kh:kh + oh, kw:kw + ow]
            prod = np.matmul(np.transpose(patch, (0, 2, 3, 1)), w[:, :, kh, kw].T)
            out += np.transpose(prod, (0, 3, 1, 2))
    return (out + bias[None, :, None, None]).astype(np.float32)


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
