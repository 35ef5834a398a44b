# nki.compiler directives and direct-allocation buffers as the attention samples write them:
# decorators (skip_middle_end_transformations, enable_stack_allocator, force_auto_alloc),
# `with nki.compiler.no_reorder():` blocks, sbuf.mod_alloc / psum.alloc buffers,
# scheduling keywords on loop ranges, and nki.jit(additional_compile_opt=...).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.compiler as ncc


def psum_alloc(idx, pdim_size, fdim_size):
    return (idx % 8, 0, 0)


@nki.compiler.skip_middle_end_transformations
@nki.compiler.enable_stack_allocator
@nki.jit(additional_compile_opt="--disable-dge --logical-nc-config=1")
def kernel(a, b):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    a_sb = nl.ndarray((2, nl.par_dim(128), 128), dtype=a.dtype,
                      buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
    b_sb = nl.ndarray((2, nl.par_dim(128), 512), dtype=b.dtype,
                      buffer=nki.compiler.sbuf.mod_alloc(base_addr=1024, num_free_tiles=(2,)))
    acc = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=ncc.psum.alloc(psum_alloc))
    with nki.compiler.no_reorder():
        for k in nl.affine_range(2, precise_schedule=True):
            a_sb[k] = nl.load(a[k * 128:(k + 1) * 128, :])
            b_sb[k] = nl.load(b[k * 128:(k + 1) * 128, :])
    zero = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    acc[...] = nl.copy(zero)
    for k in nl.sequential_range(2, directives=ncc.multi_buffer(2)):
        acc += nisa.nc_matmul(a_sb[k], b_sb[k])
    with ncc.force_auto_alloc():
        res = nl.copy(acc, dtype=a.dtype)
    nl.store(out, value=res)
    return out
