# The newer `nki` API's tensor view methods (NKI 0.2+ NkiTensor views that share storage):
# `flatten_dims`, `permute`, `select`, `reshape_dim`, `expand_dim` + `broadcast(dim, size)` on HBM
# tensors, and `permute` / `squeeze_dim` / `flatten_dims` on SBUF tiles, with destination-first
# nisa calls. No index arithmetic in the kernel: every access is a view method.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x, g, b):
    rows, groups, width = x.shape
    out = nl.ndarray((rows, width), dtype=x.dtype, buffer=nl.shared_hbm)
    blocks = out.reshape_dim(0, (rows // 128, 128))
    # b[j, p, k] read as bp[p, j * 32 + k]: a strided HBM view, loaded once
    bp = nl.ndarray((128, width), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=bp, src=b.permute(1, 0, 2).flatten_dims(1, 2))
    # g[c] on every partition: a (1, width) view broadcast along the partitions
    gb = nl.ndarray((128, width), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=gb, src=g.expand_dim(0).broadcast(0, 128))
    sel = x.select(1, 2).reshape_dim(0, (rows // 128, 128))
    first = x.select(1, 0).reshape_dim(0, (rows // 128, 128))
    for t in nl.affine_range(rows // 128):
        xs = nl.ndarray((128, width), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=xs, src=sel.select(0, t))
        x0 = nl.ndarray((128, 4, width // 4), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=x0, src=first.select(0, t).reshape_dim(1, (4, width // 4)))
        # x0[p, a, c] -> x0t[p, c, a]: a free-dim permutation read by the Vector Engine
        x0t = nl.ndarray((128, width // 4, 4), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=x0t, src=x0.permute(0, 2, 1))
        acc = nl.ndarray((128, 1, width), dtype=nl.float32, buffer=nl.sbuf)
        row = acc.squeeze_dim(1)
        nisa.tensor_tensor(dst=row, data1=xs, data2=gb, op=nl.multiply)
        nisa.tensor_tensor(dst=row, data1=row, data2=bp, op=nl.add)
        nisa.tensor_tensor(dst=row, data1=row, data2=x0t.flatten_dims(1, 2), op=nl.add)
        nisa.dma_copy(dst=blocks.select(0, t), src=row)
    return out
