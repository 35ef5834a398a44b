# try / except / else / finally in the host code of a kernel (nki-language.md 3.1: ordinary Python
# runs while tracing): a helper returning from inside a try, a KeyError caught, a ValueError
# raised by a module helper checking a shape and caught, an else block, a finally block. No tile
# work happens inside the try; its outcome is decided at trace time.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

SCALES = {"double": 2.0, "half": 0.5}


def check_rows(x, rows):
    if x.shape[0] % rows != 0:
        raise ValueError(f"{x.shape[0]} rows are not a multiple of {rows}")
    return x.shape[0] // rows


def scale_of(name):
    try:
        return SCALES[name]
    except KeyError:
        return 1.0
    finally:
        pass


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    try:
        tiles = check_rows(x, 96)
        P = 96
    except ValueError:
        tiles = check_rows(x, 128)
        P = 128
    else:
        P = P * 1
    finally:
        bias = 0.25
    try:
        shift = SCALES["missing"]
    except (KeyError, IndexError) as e:
        shift = 0.0
    f = scale_of("half") + scale_of("triple")
    for r in nl.affine_range(tiles):
        t = nl.load(x[r * P:(r + 1) * P, :])
        nl.store(out[r * P:(r + 1) * P, :], value=nl.add(nl.multiply(t, f), bias + shift))
    return out
