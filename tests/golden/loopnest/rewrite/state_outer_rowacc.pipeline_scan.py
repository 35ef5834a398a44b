# Legacy nl API: a selective scan written with the STATE loop outermost around its chunk loop, as a
# templated outside author writes it: the carry is declared (zeroed) inside the state loop, and the
# output row accumulates in one full-row (128, seq) SBUF tile stored once after every state. The
# full row fits no PSUM bank and the carry ties the nest; pipeline_scan expands the carry per state,
# moves the state loop inside the chunk loop and cuts the accumulator to the chunk's window.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(delta, u, a, b, c):
    C, M = delta.shape
    _, S = a.shape
    W = 512
    out = nl.ndarray((C, M), dtype=delta.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(C // 128):
        rows = nl.ds(ct * 128, 128)
        d_all = nl.load(delta[rows, :])
        u_all = nl.load(u[rows, :])
        a_t = nl.load(a[rows, :])
        du = nisa.tensor_tensor(d_all, u_all, op=nl.multiply)
        state = nl.zeros((128, S), dtype=nl.float32, buffer=nl.sbuf)
        for j in nl.sequential_range(M // W):
            row_sum = nl.zeros((128, W), dtype=nl.float32, buffer=nl.psum)
            cols = nl.ds(j * W, W)
            for s in nl.affine_range(S):
                decay = nisa.activation(op=nl.exp, data=d_all[:, cols], scale=a_t[:, s])
                b_row = nl.broadcast_to(nl.load(b[s:s + 1, cols]), shape=(128, W))
                drive = nisa.tensor_tensor(du[:, cols], b_row, op=nl.multiply)
                h = nisa.tensor_tensor_scan(decay, drive, initial=state[:, s], op0=nl.multiply, op1=nl.add)
                state[:, s:s + 1] = nl.copy(h[:, W - 1:W])
                c_row = nl.broadcast_to(nl.load(c[s:s + 1, cols]), shape=(128, W))
                row_sum[...] += nisa.tensor_tensor(h, c_row, op=nl.multiply)
            nl.store(out[128*ct:128*ct + 128, 512*j:512*j + 512], value=row_sum)
    return out
