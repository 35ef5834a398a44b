# Legacy nl API: host counters whose value at a call is no count of the loop's iterations the form
# can write, by `kind` (the column count over 64 less one): 0 adds the loop index itself (a triangular number), 1 bumps under conditions
# of two moduli (`i % 2 == 0` and `i % 3 == 0`), 2 under a condition on the counter's own value.
# Each picks the output row block, so each lifted wrong would store elsewhere.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

P = 128


@nki.jit
def kernel(x):
    n = x.shape[0] // P
    F = x.shape[1]
    kind = F // 64 - 1
    out = nl.ndarray((n * n * P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    count = [0]

    def store_at(t):
        k = count[0]
        nl.store(out[k * P:(k + 1) * P, :], value=t)

    for i in nl.sequential_range(n):
        t = nl.load(x[i * P:(i + 1) * P, :])
        store_at(nl.multiply(t, 3.0))
        if kind == 0:
            count[0] += i
        elif kind == 1:
            if i % 2 == 0:
                if i % 3 == 0:
                    count[0] += 1
        else:
            if count[0] % 3 == 0:
                count[0] += 1
            count[0] += 1
    return out
