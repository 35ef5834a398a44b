# Trace-time state kept by helpers through `global` (a module setting) and `nonlocal` (a closure
# adding to the kernel's running shift), then read by the tile work (nki-language.md 3.1: ordinary
# Python runs while tracing).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

SCALE = 1.0


def set_scale(v):
    global SCALE
    SCALE = v


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    set_scale(4.0)
    shift = 0.0

    def bump(d):
        nonlocal shift
        shift = shift + d

    bump(1.0)
    bump(0.5)
    for r in nl.affine_range(M // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.add(nl.multiply(t, SCALE), shift))
    return out
