// Printing a loop-nest form back as NKI source. Unchanged nodes are copied from the source as the
// author wrote them (comments, spacing, index style; re-indented when they moved to another
// depth); changed nodes are written in the kernel's dialect: its module aliases, its API form
// (legacy value-returning or destination-first), its index style (index grids or slices), the
// operands the change left alone copied verbatim. So a diff of the input and the output shows
// the transformation and nothing else.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "loopnest/arg_spec.h"
#include "loopnest/form.h"

namespace loopnest {

struct EmitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct EmitOptions {
  // Print every operation from the form, as if every statement had changed, with operands,
  // destinations and callees written from the form rather than copied (tests the printer).
  bool regenerate = false;
  // Print operands a move carried from another statement as the author wrote them (a name such
  // as `scale`); emit_checked turns it off when that text means something else where it lands.
  bool moved_origins = true;
  // Print a rewritten access with the author's text of the dims a move left unchanged and the
  // author's spelling of the others (Operand::written); emit_checked turns it off when that text
  // means something else where it lands.
  bool authored_dims = true;
  // Leave out the module's helper functions the printed kernel no longer calls (their calls opened
  // into it by a move); never one the author left uncalled.
  bool drop_uncalled_helpers = true;
};

// The kernel's source with the form's changes. Throws EmitError for a form it cannot print.
std::string emit(const Kernel& k, const EmitOptions& options = {});

// emit(), then lifts the printed source (same arguments) and requires the same form (dump.h):
// what is printed is exactly what the form says. Throws EmitError naming the first difference.
// Operands carried from another statement print as written where that checks, else as values.
std::string emit_checked(const Kernel& k, const std::vector<ArgSpec>& args, const EmitOptions& options = {});

}  // namespace loopnest
