// Registration of the math part of nki.language (element-wise, reductions, matmul, transpose,
// where, loop_reduce, softmax).
#pragma once

#include "nki/value.h"

namespace nki::lib {

void add_math_functions(ModuleObj& m);
// load, store, copy, broadcast_to, load_transpose2d, expand_dims, device_print (language_data.cpp).
void add_data_functions(ModuleObj& m);
// var, all, rms_norm, gather_flattened (language_composite.cpp).
void add_composite_functions(ModuleObj& m);
// abs_max, abs_min, random_seed, rand, dropout, atomic_rmw (language_random.cpp).
void add_random_functions(ModuleObj& m);

}  // namespace nki::lib
