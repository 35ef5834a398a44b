import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add_position_bias(x, pos):
    # x: (B, S, D); pos: (S, D). Shapes unpacked in one nested statement, the sequence split
    # with divmod into full 128-row tiles and a remainder, and the rows addressed by nl.ds.
    (B, S), D = x.shape[:2], x.shape[-1]
    n_full, tail = divmod(S, 128)
    assert pos.shape == (S, D), f"pos is {pos.shape}, expected {(S, D)}"
    out = nl.ndarray((B, S, D), dtype=x.dtype, buffer=nl.shared_hbm)
    spans = [(i * 128, 128) for i in range(n_full)] + ([(n_full * 128, tail)] if tail else [])
    for start, size in spans:
        p = nl.load(pos[nl.ds(start, size), :])
        for b in nl.affine_range(B):
            t = nl.load(x[b, nl.ds(start, size), :])
            nl.store(out[b, nl.ds(start, size), :], value=nl.add(t, p))
    return out
