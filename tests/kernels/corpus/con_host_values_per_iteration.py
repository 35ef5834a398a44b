import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(a, b):
    # Host values that differ per iteration of a loop: a counter a closure updates through
    # `nonlocal` (each row tile gets its ordinal added), a function chosen by the loop variable
    # (clamp from below, then from above); and a dict of tiles filled by item assignment.
    M, N = a.shape
    T = M // 128
    out = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    mix = nl.ndarray((128, N), dtype=a.dtype, buffer=nl.shared_hbm)
    count = 0

    def emit(r, t):
        nonlocal count
        count += 1
        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.add(t, float(count)))

    for r in range(T):
        emit(r, nl.load(a[r * 128:(r + 1) * 128, :]))
    assert count == T

    tiles = {}
    tiles["a"] = nl.load(a[0:128, :])
    tiles["b"] = nl.load(b[0:128, :])
    weights = {"a": 0.5, "b": -1.0}
    acc = nl.add(tiles["a"], tiles["b"])
    for name in ("a", "b"):
        acc = nl.add(acc, nl.multiply(tiles[name], weights[name]))
    for k in range(2):
        acc = (nl.maximum if k == 0 else nl.minimum)(acc, 0.25 + k)
    nl.store(mix, value=acc)
    return out, mix
