# Legacy API, index-space style: the tile sizes are the kernel's own constants (`TP = 128`, `TF = 1024`
# at the top of its body), the trips ceil-divided and the tails masked, so the author wrote it for
# any TF (x: (256, 2560), a ragged 512-column tail at TF = 1024). free_size offers TF quartered,
# halved and doubled; TP, a partition count, is no site. At TF = 1024 the fp32 accumulator is 4 KiB
# per partition, more than a PSUM bank, so psum_accumulate is offered only after TF = 512.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    C, M = x.shape
    S = w.shape[0]
    TP = 128
    TF = 1024
    n_ct = (C + TP - 1) // TP
    n_jt = (M + TF - 1) // TF

    out = nl.ndarray((C, M), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:TP, 0:TF]

    for ct in nl.affine_range(n_ct):
        for jt in nl.affine_range(n_jt):
            ch = ct * TP + i_p
            j = jt * TF + i_f
            inb = (ch < C) & (j < M)
            x_t = nl.load(x[ch, j], mask=inb)
            acc = nl.zeros((nl.par_dim(TP), TF), dtype=nl.float32, buffer=nl.sbuf)
            for s in nl.sequential_range(S):
                w_t = nl.load(w[s + 0 * i_p, j], mask=(j < M))
                acc[...] += nisa.tensor_tensor(x_t, w_t, op=nl.multiply, mask=inb)
            nl.store(out[ch, j], value=acc, mask=inb)
    return out
