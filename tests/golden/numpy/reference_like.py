# the shape of NKIBench reference programs: seeded inputs, float32 math, reductions, matmuls
import numpy as np

def rmsnorm_matmul(x, w):
    k = x.shape[-1]
    rms = np.sqrt(np.sum(np.square(x) / k, axis=1, keepdims=True))
    return (x / rms) @ w

def softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True)

for seed in [0, 21, 42]:
    np.random.seed(seed)
    x = np.random.normal(0, 1, size=(16, 64)).astype(np.float32)
    w = np.random.normal(0, 1, size=(64, 8)).astype(np.float32)
    v = np.abs(np.random.normal(size=(16, 64))).astype(np.float32)
    print(seed, repr(float(x[3, 5])), repr(float(np.sum(x))), repr(float(np.sum(x * x, axis=-1)[2])))
    print(repr(float(v.mean())), repr(float(np.max(x, axis=0)[7])), x.min(axis=1, keepdims=True).shape)
    y = rmsnorm_matmul(x, w)
    print(y.shape, y.dtype.name, f"{float(y.sum()):.4e}")
    p = softmax(x.reshape(4, 4, 64))
    print(p.shape, f"{float(p.sum()):.5f}", f"{float(p[1, 2, 3]):.5e}")
    m = 0.9 * x + 0.1 * v
    print(repr(float(np.sum(m * 0.999 + 1e-8))), (m / (np.sqrt(1000 * v) + 1e-8)).dtype.name)
    q = np.random.normal(size=(1, 4, 2, 8)).astype(np.float32)
    k = np.repeat(q, 2, axis=2)
    t = np.transpose(k, (0, 2, 1, 3))
    print(k.shape, t.shape, repr(float(t[0, 3, 1, 2])), repr(float(k.sum(axis=(1, 3))[0, 2])))
    c = np.concatenate([x[:8], x[8:] * 2], axis=0)
    print(c.shape, repr(float(c.sum())))
    b = np.matmul(x.reshape(2, 8, 64), w)
    print(b.shape, f"{float(b[1, 7, 3]):.5e}")
print(np.allclose(x, x + 1e-9), np.allclose(x, x + 1e-3), np.isclose(np.array([1.0, 2.0]), 1.0).tolist())
print(np.all(x > -100), np.any(x > 100), bool((x > 0).any()))
