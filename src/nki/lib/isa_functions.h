// Parts of the nki.isa module defined outside isa_module.cpp: Tensor Engine, GpSimd and DMA
// instructions (isa_engines.cpp) and the enum constants.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nki/lib/module_util.h"

namespace nki::lib {

// The engine an `engine=` argument names (nisa.vector_engine, ...); nullopt for engine.unknown
// or no argument: the compiler's choice.
std::optional<trn::Engine> engine_of(const Value& v);

// def_isa(module, name, legacy params, number of leading tensor params of the legacy form, fn).
using DefIsa = void (*)(ModuleObj&, const std::string&, std::vector<Param>, int, LibFn);

void add_isa_engine_functions(ModuleObj& m, DefIsa def_isa);
void add_isa_constants(ModuleObj& m);
// tensor_copy_predicated (isa_select.cpp).
void add_isa_select_functions(ModuleObj& m);
// max8, nc_find_index8, nc_match_replace8, select_reduce, range_select, tensor_scalar_cumulative,
// sequence_bounds, local_gather, nc_stream_shuffle (isa_rowwise.cpp).
void add_isa_rowwise_functions(ModuleObj& m, DefIsa def_isa);
// nisa.dropout (language_random.cpp).
void add_isa_random_functions(ModuleObj& m, DefIsa def_isa);

}  // namespace nki::lib
