"""LayerNorm as an assistant writes it when the row may not fit one instruction: the code path
chosen by an `if` on the shape (one pass when D fits MAX_FREE, else per-chunk partial sums kept in
Python lists and added in an unrolled nl.static_range), a helper with a default eps, slices of an
SBUF tile with computed widths, module constants."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

P = 128
MAX_FREE = 512


def chunk_bounds(D: int, chunk: int = MAX_FREE):
    """[(start, width), ...] covering D columns in chunks of at most `chunk`."""
    return [(c, min(chunk, D - c)) for c in range(0, D, chunk)]


def row_sums(t, D: int):
    """Per-row sums of t [P, D] and of its squares, chunked when the row is wide."""
    if D <= MAX_FREE:
        return nl.sum(t, axis=1, keepdims=True), nl.sum(nl.square(t), axis=1, keepdims=True)
    s_parts, q_parts = [], []
    for start, width in chunk_bounds(D):
        part = t[:, start:start + width]
        s_parts.append(nl.sum(part, axis=1, keepdims=True))
        q_parts.append(nl.sum(nl.square(part), axis=1, keepdims=True))
    s, q = s_parts[0], q_parts[0]
    for c in nl.static_range(1, len(s_parts)):
        s = nl.add(s, s_parts[c])
        q = nl.add(q, q_parts[c])
    return s, q


def normalize(t, s, q, D: int, eps: float = 1e-5):
    mean = nl.multiply(s, 1.0 / D)
    var = nl.subtract(nl.multiply(q, 1.0 / D), nl.multiply(mean, mean))
    return nl.multiply(nl.subtract(t, mean), nl.rsqrt(nl.add(var, eps)))


@nki.jit
def layernorm(x):
    N, D = x.shape
    assert N % P == 0, f"N={N} must be a multiple of {P}"
    out = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(N // P):
        t = nl.load(x[i * P:(i + 1) * P, :])
        s, q = row_sums(t, D)
        nl.store(out[i * P:(i + 1) * P, :], value=normalize(t, s, q, D))
    return out
