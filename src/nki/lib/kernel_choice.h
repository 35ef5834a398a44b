// The function of a kernel file that a run calls, found from the file's text: the file is loaded
// (its top level runs, as every run loads it) and find_kernel_entry picks the function. The
// rewrites and the lifter read this choice, so they edit exactly the function eval, profile and
// trace run (one rule: there is no syntactic second guess).
#pragma once

#include <optional>
#include <string>

#include "nki/ast.h"
#include "nki/diagnostics.h"
#include "nki/lib/kernel_entry.h"

namespace nki::lib {

struct KernelChoice {
  // The def the run calls: its name and line (a host wrapper named by
  // --entry is its own def: running it launches its kernel). Empty / 0 when there is none.
  std::string function;
  int line = 0;  // where the def starts in `text` (its first decorator)
  // The module-level name the run finds it by (`kernel`, --entry's name, or the file's one kernel):
  // a kernel a factory made (`kernel = make_kernel(512)`) is a def nested in the factory, known to
  // the module only through this name.
  std::string attribute;
  EntryProblem problem;                  // why no function runs (kind None when one does)
  std::optional<Diagnostic> load_error;  // the file does not load: its first error
  // The function runs but is not one a `def` of the file made (a class instance, a builtin).
  bool not_a_definition = false;
  bool ok() const { return !function.empty(); }
  // Why there is no def to read, as one line ("" when ok). `choose_with` as EntryProblem::message.
  std::string message(std::string_view choose_with = {}) const;
};

// Loads `text` (bounded: a top level that loops forever is a Limit load error) and chooses the
// function `entry` names, or the default one (find_kernel_entry). Memoized on (path, text, entry):
// the rewrites lift the same text many times.
KernelChoice choose_kernel(const std::string& path, const std::string& text, const std::string& entry = "");

// The function definition a run of `fn` calls: a kernel object's function (@nki.jit and its
// aliases), or a plain function's own def. Null for anything else.
const FunctionCode* entry_definition(const Value& fn);

// The module-level def of `module` that `choice` names (same name, same line; the module must be
// a parse of the text the choice was made on). Null when there is none.
const FunctionCode* chosen_definition(const ModuleAst& module, const KernelChoice& choice);
// The def `choice` names nested inside a module-level function (a kernel factory's `@nki.jit def
// kernel` it returns), at any depth of its blocks. Null when there is none.
const FunctionCode* nested_definition(const ModuleAst& module, const KernelChoice& choice);

}  // namespace nki::lib
