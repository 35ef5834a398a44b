// The builtin modules a kernel or reference may import, installed into an interpreter.
//   numpy                                 -> make_numpy_module      (numpy_module.cpp)
//   math                                  -> make_math_module       (math_module.cpp)
//   neuronxcc.nki, nki                    -> make_nki_module        (nki_module.cpp)
//   neuronxcc.nki.language, nki.language  -> make_language_module   (language_module.cpp)
//   neuronxcc.nki.isa, nki.isa            -> make_isa_module        (isa_module.cpp)
//   neuronxcc.nki.typing, nki.typing      -> make_typing_module
//   neuronxcc.nki.compiler, nki.compiler  -> make_compiler_module
//   neuronxcc                             -> make_neuronxcc_module
//   typing, functools, itertools, ml_dtypes -> python_modules.cpp
// Any other import binds a host-only placeholder (host_module.h): harness code, never loaded.
#pragma once

#include "nki/value.h"

namespace nki {
class Interpreter;
}

namespace nki::lib {

ObjectPtr make_numpy_module(Interpreter& in);
ObjectPtr make_math_module(Interpreter& in);
ObjectPtr make_nki_module(Interpreter& in);
ObjectPtr make_language_module(Interpreter& in);
ObjectPtr make_isa_module(Interpreter& in);
ObjectPtr make_typing_module(Interpreter& in);
ObjectPtr make_compiler_module(Interpreter& in);     // nki.compiler / neuronxcc.nki.compiler
ObjectPtr make_neuronxcc_module(Interpreter& in);    // neuronxcc (from neuronxcc import nki)
ObjectPtr make_typing_stdlib_module(Interpreter& in);  // typing (python_modules.cpp)
ObjectPtr make_functools_module(Interpreter& in);
ObjectPtr make_itertools_module(Interpreter& in);
ObjectPtr make_ml_dtypes_module(Interpreter& in);
ObjectPtr make_future_module(Interpreter& in);  // __future__ (annotations: postponed by the resolver)
ObjectPtr make_dataclasses_module(Interpreter& in);  // python_classes.cpp
ObjectPtr make_enum_module(Interpreter& in);         // python_classes.cpp
ObjectPtr make_collections_module(Interpreter& in);  // namedtuple (python_namedtuple.cpp)
Value make_typing_named_tuple();                     // typing.NamedTuple (python_namedtuple.cpp)

// Registers all of the above with the interpreter's module registry under every accepted name.
void install_builtin_modules(Interpreter& in);

}  // namespace nki::lib
