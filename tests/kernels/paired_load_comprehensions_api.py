import nki
import nki.language as nl


# Two comprehensions of loads over one range (two rolled loops fuse_nests could fuse), read together.
@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 256), dtype=a.dtype, buffer=nl.shared_hbm)
    n = a.shape[0]
    a_tiles = [nl.load(a[i]) for i in range(n)]
    b_tiles = [nl.load(b[i]) for i in range(n)]
    total = nl.zeros((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    for i in range(n):
        total = nl.add(total, nl.multiply(a_tiles[i], b_tiles[i]))
    nl.store(out, value=total)
    return out
