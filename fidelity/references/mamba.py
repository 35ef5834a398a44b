# The Mamba tutorial's selective scan: delta, u [BATCH, CHANNELS, SEQ_LEN], A [CHANNELS, STATE],
# B, C [BATCH, STATE, SEQ_LEN]; out[b, c, t] = sum_s C[b, s, t] * h[b, c, s, t] with
# h_t = exp(delta_t * A) * h_{t-1} + delta_t * B_t * u_t. The kernels take the output as their
# last argument (baremetal form).
import numpy as np

BATCH = 1
CHANNELS = 256
SEQ_LEN = 1024
STATE = 16


def get_inputs():
    delta = np.random.normal(loc=0, scale=0.1, size=(BATCH, CHANNELS, SEQ_LEN)).astype(np.float32)
    u = np.random.normal(loc=0, scale=1.0, size=(BATCH, CHANNELS, SEQ_LEN)).astype(np.float32)
    a = np.random.normal(loc=0, scale=1.0, size=(CHANNELS, STATE)).astype(np.float32)
    b = np.random.normal(loc=0, scale=1.0, size=(BATCH, STATE, SEQ_LEN)).astype(np.float32)
    c = np.random.normal(loc=0, scale=1.0, size=(BATCH, STATE, SEQ_LEN)).astype(np.float32)
    return [delta, u, a, b, c]


def forward(delta, u, a, b, c):
    # [BATCH, CHANNELS, STATE, SEQ_LEN]
    delta_a = np.exp(delta[:, :, None, :] * a[None, :, :, None])
    delta_bu = (delta * u)[:, :, None, :] * b[:, None, :, :]
    scan = np.zeros((BATCH, CHANNELS, STATE, SEQ_LEN), dtype=np.float32)
    for t in range(SEQ_LEN):
        prev = scan[..., t - 1] if t > 0 else 0
        scan[..., t] = delta_a[..., t] * prev + delta_bu[..., t]
    return np.sum(scan * c[:, None, :, :], axis=2)


def transform_to_nki_inputs(inputs):
    return inputs + [np.zeros((BATCH, CHANNELS, SEQ_LEN), dtype=np.float32)]


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    return [np.reshape(k_res[0], ref.shape)]
