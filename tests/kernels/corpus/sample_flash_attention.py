# Pipelined / flash attention style (contributed samples): an identity from
# nl.shared_constant(np.identity(128, dtype=np.int8), dtype=nl.bfloat16) for Tensor Engine
# transposes (nc_matmul(..., is_transpose=True)), the online softmax over key sections in an
# nl.sequential_range with `if section_i == 0:`, positional nisa calls (tensor_scalar(x, op,
# operand), tensor_reduce(op, x, axis=...), reciprocal(x)), nisa.activation_reduce,
# nisa.scalar_tensor_tensor, nl.maximum / nl.minimum, in-place updates `m[...] = ...`, and a
# grid launch of one program.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def flash_fwd(q, k, v, softmax_scale=0.125):
    seqlen, d = q.shape
    out = nl.ndarray((seqlen, d), dtype=q.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(128, dtype=np.int8), dtype=nl.bfloat16)
    ident = nl.load(identity)
    n_tiles = seqlen // 128

    for qi in nl.affine_range(n_tiles):
        q_tile = nl.load(q[qi * 128:(qi + 1) * 128, :], dtype=nl.bfloat16)
        q_t = nl.copy(nisa.nc_matmul(q_tile, ident, is_transpose=True), dtype=nl.bfloat16)
        m = nl.ndarray((par_dim(128), 1), dtype=nl.float32, buffer=nl.sbuf)
        l = nl.ndarray((par_dim(128), 1), dtype=nl.float32, buffer=nl.sbuf)
        o = nl.ndarray((par_dim(128), d), dtype=nl.float32, buffer=nl.sbuf)
        for section_i in nl.sequential_range(n_tiles):
            k_tile = nl.load(k[section_i * 128:(section_i + 1) * 128, :], dtype=nl.bfloat16)
            k_t = nl.copy(nisa.nc_matmul(k_tile, ident, is_transpose=True), dtype=nl.bfloat16)
            v_tile = nl.load(v[section_i * 128:(section_i + 1) * 128, :], dtype=nl.bfloat16)
            s = nisa.tensor_scalar(nisa.nc_matmul(q_t, k_t), np.multiply, softmax_scale)
            cur_max = nisa.tensor_reduce(np.max, s, axis=(1,))
            if section_i == 0:
                new_max = cur_max
            else:
                new_max = nl.maximum(m, cur_max)
            neg_max = nisa.tensor_scalar(new_max, np.multiply, -1.0)
            row_sum = nl.ndarray((par_dim(128), 1), dtype=nl.float32, buffer=nl.sbuf)
            p = nisa.activation_reduce(np.exp, s, reduce_op=np.add, reduce_res=row_sum, bias=neg_max,
                                       dtype=nl.bfloat16)
            p_t = nl.copy(nisa.nc_matmul(p, ident, is_transpose=True), dtype=nl.bfloat16)
            pv = nl.copy(nisa.nc_matmul(p_t, v_tile))
            if section_i == 0:
                l[...] = row_sum
                o[...] = pv
            else:
                alpha = nisa.activation(np.exp, nl.subtract(m, new_max))
                l[...] = nisa.scalar_tensor_tensor(data=l, op0=np.multiply, operand0=alpha, op1=np.add, operand1=row_sum)
                o[...] = nisa.scalar_tensor_tensor(data=o, op0=np.multiply, operand0=alpha, op1=np.add, operand1=pv)
            m[...] = new_max
        inv = nisa.reciprocal(l)
        res = nisa.tensor_scalar(o, np.multiply, inv, dtype=q.dtype)
        # clamp tiny negative zeros from rounding (a no-op for the values: min with +inf)
        res = nl.minimum(res, np.inf)
        nl.store(out[qi * 128:(qi + 1) * 128, :], value=res)
    return out


def kernel(q, k, v):
    return flash_fwd[1](q, k, v)
