// Printing back checked (emit.h): the printed kernel lifted again must have the form that was
// printed, so what is printed is exactly what the form says.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include <fmt/core.h>

#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/emitter.h"
#include "loopnest/lift.h"
#include "loopnest/live_mask.h"

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

// The printing options emit_checked tries, in order: the author's text first, then without the kinds
// of it that can name another value where a move put it: a carried operand's name (not in scope
// there, or rebound), then the author's index text (a name rebound or out of scope where the
// operand landed), with and then without carried names.
std::vector<EmitOptions> attempts(const Kernel& k, const EmitOptions& options) {
  std::vector<EmitOptions> out{options};
  auto and_without = [&out](bool EmitOptions::*text) {
    for (size_t i = 0, n = out.size(); i < n; ++i) {
      EmitOptions plain = out[i];
      plain.*text = false;
      out.push_back(plain);
    }
  };
  if (options.moved_origins && has_moved_origin(k.body)) and_without(&EmitOptions::moved_origins);
  if (options.authored_dims && !options.regenerate) and_without(&EmitOptions::authored_dims);
  return out;
}

}  // namespace

std::string emit_checked(const Kernel& moved, const std::vector<ArgSpec>& args, const EmitOptions& options) {
  // A move can leave a constraint that holds everywhere (a jammed copy's row guard on a row that is
  // whole); the lift drops such constraints, so the form printed drops them too (once, for every try).
  Kernel k = moved;
  drop_dead_mask_constraints(k);
  const std::vector<EmitOptions> tries = attempts(k, options);
  for (size_t i = 0;; ++i) {
    try {
      return emit_checked_once(k, args, tries[i]);
    } catch (const EmitError&) {
      if (i + 1 == tries.size()) throw;
    }
  }
}

}  // namespace loopnest
