# CS149 part 2: valid 2-D convolution (cross-correlation) of X [BATCH, IN_CH, H, W] with
# W [OUT_CH, IN_CH, FH, FW], plus bias [OUT_CH], then max pooling POOL x POOL. DTYPE is the
# inputs' and the output's dtype; the reference computes in float32.
import numpy as np

BATCH = 1
IN_CH = 256
OUT_CH = 256
H = 6
W = 10
FH = 3
FW = 3
POOL = 1
DTYPE = "float32"


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(BATCH, IN_CH, H, W)).astype(DTYPE)
    w = np.random.normal(loc=0, scale=0.05, size=(OUT_CH, IN_CH, FH, FW)).astype(DTYPE)
    bias = np.random.normal(loc=0, scale=1.0, size=(OUT_CH,)).astype(DTYPE)
    return [x, w, bias]


def forward(x, w, bias):
    oh = H - FH + 1
    ow = W - FW + 1
    xf = x.astype(np.float32)
    wf = w.astype(np.float32)
    out = np.zeros((BATCH, OUT_CH, oh, ow), dtype=np.float32)
    for b in range(BATCH):
        acc = np.zeros((OUT_CH, oh * ow), dtype=np.float32)
        for i in range(FH):
            for j in range(FW):
                window = np.reshape(xf[b, :, i:i + oh, j:j + ow], (IN_CH, oh * ow))
                acc = acc + np.matmul(wf[:, :, i, j], window)
        out[b] = np.reshape(acc, (OUT_CH, oh, ow))
    ph = oh // POOL
    pw = ow // POOL
    cropped = out[:, :, 0:ph * POOL, 0:pw * POOL]
    pooled = np.max(np.max(np.reshape(cropped, (BATCH, OUT_CH, ph, POOL, pw, POOL)), axis=5), axis=3)
    return (pooled + bias.astype(np.float32)[None, :, None, None]).astype(DTYPE)


def transform_to_nki_inputs(inputs):
    return inputs + [POOL]


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    return [np.reshape(k_res[0], ref.shape)]
