// Parts of the nki.isa module defined outside isa_module.cpp: Tensor Engine, GpSimd and DMA
// instructions (isa_engines.cpp) and the enum constants.
#pragma once

#include <string>
#include <vector>

#include "nki/lib/module_util.h"

namespace nki::lib {

// def_isa(module, name, legacy params, number of leading tensor params of the legacy form, fn).
using DefIsa = void (*)(ModuleObj&, const std::string&, std::vector<Param>, int, LibFn);

void add_isa_engine_functions(ModuleObj& m, DefIsa def_isa);
void add_isa_constants(ModuleObj& m);
// tensor_copy_predicated (isa_select.cpp).
void add_isa_select_functions(ModuleObj& m);

}  // namespace nki::lib
