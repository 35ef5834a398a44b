# basic and advanced indexing, views and slice assignment
import numpy as np

x = np.arange(24).reshape(2, 3, 4)
print(x[1, 2, 3], x[-1, -1, -1], x[0].tolist())
print(x[:, 1, ::2].tolist())
print(x[..., 1].tolist())
print(x[:, None, 0, :2].shape, x[None].shape, x[..., None].shape)
print(x[1, ::-1, 1:3].tolist())
print(x[[0, 1], [2, 0]].tolist())
print(x[:, [2, 0], 1].tolist())
print(x[0, [1, 2], :][:, [3, 0]].tolist())
print(x[x % 5 == 0].tolist())
y = np.zeros((3, 4), dtype=np.float32)
y[1:, ::2] = 7
y[0] = np.arange(4)
y[:, 3] += 0.5
y[[2, 0], [1, 1]] = -1
print(y.tolist())
v = y[1]
v[0] = 100
print(y[1, 0], v.shape)
z = np.zeros((2, 3, 4))
z[..., 0] = np.array([1.0, 2.0, 3.0])
z[1, :, 1:3] = np.ones((3, 1)) * 5
print(z.sum(), z[1].tolist())
s = np.zeros((4, 2, 5), dtype=np.float32)
for i in range(5):
    s[..., i] = i * np.ones((4, 2))
print(s[3, 1].tolist(), len(s), [r.shape for r in s][0])
print(x[1][2][3], int(x[1, 2, 3]) + 1, float(x[0, 0, 1]) / 2)
