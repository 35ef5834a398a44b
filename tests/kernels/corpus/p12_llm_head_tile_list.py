"""Mean over heads and each head's deviation from it, as an assistant writes it: a Python list of
tiles filled by append in an unrolled nl.static_range, indexed by the loop variable in a second and
third static_range, `*lead, D = x.shape` star unpacking, two outputs."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

NUM_HEADS = 4


@nki.jit
def head_mean_dev(x):
    *lead, D = x.shape
    H, S = lead
    assert H == NUM_HEADS and S == 128, "one tile of rows per head"
    mean_out = nl.ndarray((S, D), dtype=x.dtype, buffer=nl.shared_hbm)
    dev_out = nl.ndarray((H, S, D), dtype=x.dtype, buffer=nl.shared_hbm)
    tiles = []
    for h in nl.static_range(H):
        tiles.append(nl.load(x[h, :, :]))
    total = tiles[0]
    for h in nl.static_range(1, H):
        total = nl.add(total, tiles[h])
    mean = nl.multiply(total, 1.0 / H)
    nl.store(mean_out, value=mean)
    for h in nl.static_range(H):
        nl.store(dev_out[h, :, :], value=nl.subtract(tiles[h], mean))
    return mean_out, dev_out
