# A hand-pipelined loop (prologue / steady state / epilogue): the first column tile of each row
# band is loaded before the inner loop, each iteration loads the next tile and works on the
# current one, and the body ends by rebinding the Python name (`cur = nxt`), which carries the
# tile from one iteration to the next (nki-language.md 3.1, 5: sequential_range for a loop whose
# iterations depend on each other). The last tile is handled after the loop.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    M, N = x.shape
    W = 64
    C = N // W
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(M // 128):
        rows = x[r * 128:(r + 1) * 128, :]
        cur = nl.load(rows[:, 0:W])
        for c in nl.sequential_range(C - 1):
            nxt = nl.load(rows[:, (c + 1) * W:(c + 2) * W])
            nl.store(out[r * 128:(r + 1) * 128, c * W:(c + 1) * W], value=nl.add(cur, nxt))
            cur = nxt
        nl.store(out[r * 128:(r + 1) * 128, (C - 1) * W:C * W], value=nl.multiply(cur, 2.0))
    return out
