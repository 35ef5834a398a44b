import numpy as np

BATCH, CHANNELS, SEQ, STATE = 2, 128, 512, 3
TOLERANCE = 1e-4


def get_inputs():
    delta = np.random.uniform(0.0, 0.1, size=(BATCH, CHANNELS, SEQ)).astype(np.float32)
    u = np.random.normal(size=(BATCH, CHANNELS, SEQ)).astype(np.float32)
    A = -np.random.uniform(0.5, 1.0, size=(CHANNELS, STATE)).astype(np.float32)
    B = np.random.normal(size=(BATCH, STATE, SEQ)).astype(np.float32)
    C = np.random.normal(size=(BATCH, STATE, SEQ)).astype(np.float32)
    return [delta, u, A, B, C]


def forward(delta, u, A, B, C):
    out = np.zeros((BATCH, CHANNELS, SEQ), dtype=np.float32)
    for s in range(STATE):
        dA = np.exp(delta * A[:, s][None, :, None])
        dBu = delta * u * B[:, s, :][:, None, :]
        h = np.zeros((BATCH, CHANNELS), dtype=np.float32)
        scan = np.ndarray((BATCH, CHANNELS, SEQ), dtype=np.float32)
        for t in range(SEQ):
            h = dA[:, :, t] * h + dBu[:, :, t]
            scan[:, :, t] = h
        out += scan * C[:, s, :][:, None, :]
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
