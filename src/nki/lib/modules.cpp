// Registers the builtin modules under every accepted import name (see modules.h).
#include "nki/lib/modules.h"

#include "nki/interpreter.h"
#include "nki/lib/host_module.h"
#include "nki/lib/loop_range.h"

namespace nki::lib {

void install_builtin_modules(Interpreter& in) {
  in.register_module("numpy", make_numpy_module);
  in.register_module("math", make_math_module);
  in.register_module("typing", make_typing_stdlib_module);
  in.register_module("functools", make_functools_module);
  in.register_module("itertools", make_itertools_module);
  in.register_module("ml_dtypes", make_ml_dtypes_module);
  in.register_module("__future__", make_future_module);
  in.register_module("dataclasses", make_dataclasses_module);
  in.register_module("enum", make_enum_module);
  in.register_module("collections", make_collections_module);
  in.register_module("neuronxcc", make_neuronxcc_module);
  // Both spellings of the NKI API: the legacy neuronxcc.nki and the current nki.
  for (const char* root : {"neuronxcc.nki", "nki"}) {
    std::string r(root);
    in.register_module(r, make_nki_module);
    in.register_module(r + ".language", make_language_module);
    in.register_module(r + ".isa", make_isa_module);
    in.register_module(r + ".typing", make_typing_module);
    in.register_module(r + ".compiler", make_compiler_module);
  }
  install_range_loop_recorder(in);
  install_host_modules(in);
}

}  // namespace nki::lib
