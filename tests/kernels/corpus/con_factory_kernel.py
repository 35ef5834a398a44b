# A kernel built by a factory (nki-language.md 3.1, 11: `@nki.jit` is an ordinary decorator, the
# function it wraps an ordinary closure): the factory's arguments, a local bound after the def and
# a helper defined next to the kernel are constants of its trace. The module binds the kernel
# under a name of its own.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def make_scaled_silu(tile_f=96, *, scale=0.5):
    def gate(t):
        return nl.multiply(nisa.activation(op=nl.silu, data=t), scale)

    @nki.jit
    def scaled_silu(x):
        M, N = x.shape
        out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
        n_f = (N + tile_f - 1) // tile_f
        for r in nl.affine_range(M // rows):
            for c in nl.affine_range(n_f):
                c0 = c * tile_f
                w = min(tile_f, N - c0)
                t = nl.load(x[r * rows:(r + 1) * rows, c0:c0 + w])
                nl.store(out[r * rows:(r + 1) * rows, c0:c0 + w], value=gate(t))
        return out

    rows = 128  # bound after the def: the closure reads it when the kernel runs
    return scaled_silu


silu_kernel = make_scaled_silu(tile_f=160, scale=2.0)
