// Printing back checked (emit.h): the printed kernel lifted again must have the form that was
// printed, so what is printed is exactly what the form says.
#include <algorithm>
#include <cstdlib>

#include <fmt/core.h>

#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/emitter.h"
#include "loopnest/lift.h"

namespace loopnest {

namespace {

std::string first_difference(const std::string& a, const std::string& b) {
  auto la = detail::split_lines(a), lb = detail::split_lines(b);
  for (size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
    std::string x = i < la.size() ? la[i] : "<end>", y = i < lb.size() ? lb[i] : "<end>";
    if (x != y) return fmt::format("line {}:\n  form:    {}\n  printed: {}", i + 1, x, y);
  }
  return "";
}

bool has_moved_origin(const std::vector<Node>& nodes) {
  for (const Node& n : nodes) {
    for (const Op& op : n.ops)
      for (const Arg& a : op.args)
        if (a.value.origin_moved && a.value.origin) return true;
    if (has_moved_origin(n.body) || has_moved_origin(n.orelse)) return true;
  }
  return false;
}

// A loop whose variable an enclosing loop's also names: printed, the inner one hides the outer one
// from every statement under it, and the form printed back reads alike (both print as `t`), so
// the comparison below cannot see the change of meaning.
void check_no_hidden_loop_vars(const Kernel& k) {
  for_each_node(k.body, [&](const Node& n, const std::vector<int>& around) {
    if (n.kind != NodeKind::Loop) return;
    for (int o : around)
      if (o != n.loop && k.var_name(o) == k.var_name(n.loop))
        throw EmitError(fmt::format("the loop over '{}' would hide the enclosing loop's variable of that name",
                                    k.var_name(n.loop)));
  });
}

std::string emit_checked_once(const Kernel& k, const std::vector<ArgSpec>& args, const EmitOptions& options) {
  check_no_hidden_loop_vars(k);
  std::string text = emit(k, options);
  Kernel again;
  try {
    again = lift_source(k.module->file->path, text, args, k.entry, k.nc_version);
  } catch (const LiftError& e) {
    throw EmitError("the printed kernel does not lift:\n" + e.render());
  }
  std::string want = dump(k), got = dump(again);
  if (want != got && std::getenv("ACCELOPT_DUMP_FORMS")) fmt::print(stderr, "--- form\n{}--- printed\n{}", want, got);
  if (want != got) throw EmitError("the printed kernel has another loop-nest form than the transformed one, at " +
                                   first_difference(want, got));
  return text;
}

std::string emit_checked_origins(const Kernel& k, const std::vector<ArgSpec>& args, const EmitOptions& options) {
  if (!options.moved_origins || !has_moved_origin(k.body)) return emit_checked_once(k, args, options);
  try {
    return emit_checked_once(k, args, options);
  } catch (const EmitError&) {
    // A carried name is not in scope where the operand landed, or means another value there.
    EmitOptions values = options;
    values.moved_origins = false;
    return emit_checked_once(k, args, values);
  }
}

}  // namespace

std::string emit_checked(const Kernel& k, const std::vector<ArgSpec>& args, const EmitOptions& options) {
  if (!options.authored_dims || options.regenerate) return emit_checked_origins(k, args, options);
  try {
    return emit_checked_origins(k, args, options);
  } catch (const EmitError&) {
    // An author's index text copied where it names another value (a name rebound, out of scope).
    EmitOptions plain = options;
    plain.authored_dims = false;
    return emit_checked_origins(k, args, plain);
  }
}

}  // namespace loopnest
