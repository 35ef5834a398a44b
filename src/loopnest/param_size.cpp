// A size the kernel takes as a parameter with a default (`def kernel(delta, u, ..., chunk=1024)`)
// that the task does not pass: free_size's site on it sets the default to twice or half the value.
// An author who makes a tile size a parameter writes the kernel for other values of it, and the
// default is where the size is decided; on the form it shows as literal shapes and trips (1024,
// 7), and as other literals derived from it (`h[:, chunk - 1:chunk]` is column 1023), which no move
// on the form may rescale, so the move edits the default in the source and lifts the kernel again:
// every use follows.
//
// Offered when the default is an integer power of two in [128, 8192], the parameter is not passed
// by the task (the lift used the default), the new value lifts, and the new form differs from the
// old one (the parameter sizes something). That the new size tiles the task's dimensions is the
// planner's pre-check (agents/builtin/legality.cpp, as for every free_size site); the hardware
// tile limits are checked on the result (find_sites, resizes_tiles); the five-seed check is final.
#include "loopnest/param_size.h"

#include <fmt/core.h>

#include "loopnest/dump.h"
#include "loopnest/lift.h"

namespace loopnest {

namespace {

// `text` with `count` characters at (line, col) (1-based) replaced by `with`; nullopt when the line
// is not there.
std::optional<std::string> replaced(const std::string& text, uint32_t line, uint32_t col, size_t count,
                                    const std::string& with) {
  size_t at = 0;
  for (uint32_t l = 1; l < line; ++l) {
    at = text.find('\n', at);
    if (at == std::string::npos) return std::nullopt;
    ++at;
  }
  at += col - 1;
  if (at + count > text.size()) return std::nullopt;
  return text.substr(0, at) + with + text.substr(at + count);
}

}  // namespace

bool visit_parameter_sizes(Kernel& k, const SiteSink& sink) {
  if (!k.function || !k.module || !k.module->file) return false;
  auto args = own_arguments(k);
  if (!args) return false;
  const std::string& text = k.module->file->text;
  const std::string before = dump(k);
  const auto& params = k.function->params;
  for (size_t i = 0; i < params.size() && i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    const nki::Parameter& decl = params[i];
    if (p.tensor >= 0 || p.passed || p.name != decl.name || !decl.default_value ||
        decl.default_value->kind != nki::ExprKind::Constant)
      continue;
    const nki::Value& v = static_cast<const nki::ConstantExpr&>(*decl.default_value).value;
    const nki::Span& sp = decl.default_value->span;
    if (!v.is_int() || sp.line == 0 || sp.line != sp.end_line || sp.col == 0) continue;
    const int64_t from = v.as_int();
    if (from < 128 || from > 8192 || (from & (from - 1)) != 0) continue;
    const std::string from_text = std::to_string(from);
    if (k.module->file->line_text(sp.line).compare(sp.col - 1, from_text.size(), from_text) != 0) continue;
    for (int64_t to : {from / 2, from * 2}) {
      if (to < 128 || to > 8192) continue;
      auto edited = replaced(text, sp.line, sp.col, from_text.size(), std::to_string(to));
      if (!edited) continue;
      Kernel after;
      try {
        after = lift_source(k.module->file->path, *edited, *args, k.entry, k.nc_version);
      } catch (const LiftError&) {
        continue;
      }
      if (dump(after) == before) continue;  // the parameter sizes nothing the form holds
      // Anchored at the kernel's first loop (the parameter has no statement of its own).
      std::vector<int> loops = open_loop_ids(k);
      Node* first = loops.empty() ? nullptr : find_node(k, loops.front());
      if (!first) return false;
      Analysis an(k);
      auto s = make_loop_site(k, an, *first,
                              fmt::format("set the kernel parameter `{}` from {} to {} (its default; the task "
                                          "does not pass it)",
                                          p.name, from, to),
                              {{"var", p.name}, {"from", from_text}, {"value", std::to_string(to)}, {"default", "param"}});
      if (!s) continue;
      auto shared = std::make_shared<Kernel>(std::move(after));
      if (sink(*s, [&k, shared] { k = *shared; })) return true;
    }
  }
  return false;
}

}  // namespace loopnest
