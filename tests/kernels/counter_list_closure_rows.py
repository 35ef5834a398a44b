# Legacy nl API: a running counter kept in a list (`count = [0]`) and bumped in a closure that
# stores each tile it is given into the next free row block of the output, called per iteration
# of a sequential loop and of an affine loop inside it, and under conditions on the loop index
# (`if i % 2 == 1:`, `if i + 1 < n:`). The row block a tile lands in is the number of tiles emitted
# before it: a function of the loops' indices the trace computes by running the loops.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

P = 128


@nki.jit
def kernel(x, y):
    n = x.shape[0] // P
    H = x.shape[1] // 2
    total = 2 * n + n // 2 + (n - 1)
    out = nl.ndarray((total * P, H), dtype=x.dtype, buffer=nl.shared_hbm)
    count = [0]

    def emit(t):
        k = count[0]
        count[0] += 1
        nl.store(out[k * P:(k + 1) * P, :], value=t)

    def halves(i):
        for c in nl.affine_range(2):
            xt = nl.load(x[i * P:(i + 1) * P, c * H:(c + 1) * H])
            emit(nl.multiply(xt, 2.0))

    for i in nl.sequential_range(n):
        halves(i)
        if i % 2 == 1:
            emit(nl.load(y[(i // 2) * P:(i // 2 + 1) * P, 0:H]))
        if i + 1 < n:
            a = nl.load(x[i * P:(i + 1) * P, 0:H])
            b = nl.load(x[(i + 1) * P:(i + 2) * P, 0:H])
            emit(nl.add(a, b))
    return out
