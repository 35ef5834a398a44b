#include "agents/builtin/transform_util.h"

#include <cmath>

#include "nki/ast_printer.h"

namespace agents::builtin {

std::vector<Site> MatchingTransform::find(nki::Block& kernel) const {
  std::vector<Site> out;
  visit(kernel, [&](Site s, const Action&) {
    s.transform = name();
    out.push_back(std::move(s));
    return false;
  });
  return out;
}

void MatchingTransform::apply(nki::Block& kernel, const Site& site) const {
  bool done = false;
  visit(kernel, [&](Site s, const Action& action) {
    s.transform = name();
    if (s.key() != site.key()) return false;
    action();
    done = true;
    return true;
  });
  if (!done) throw RewriteError(fmt::format("{}: no such site in this kernel ({})", name(), site.key()));
}

bool visit_blocks(nki::Block& b, const std::function<bool(nki::Block&)>& fn) {
  if (fn(b)) return true;
  for (auto& s : b) {
    if (nki::Block* child = child_block(*s))
      if (visit_blocks(*child, fn)) return true;
    if (s->kind == nki::StmtKind::If)
      if (visit_blocks(static_cast<nki::IfStmt&>(*s).orelse, fn)) return true;
  }
  return false;
}

Site make_site(const nki::Stmt& anchor, std::string summary, std::map<std::string, std::string> extra) {
  Site s;
  s.params = std::move(extra);
  s.params["line"] = std::to_string(anchor.span.line);
  s.summary = std::move(summary);
  return s;
}

std::string format_number(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

nki::ExprPtr number_expr(double v) { return parse_expr(format_number(v)); }

void erase_stmt(nki::Block& block, size_t index) { block.erase(block.begin() + static_cast<long>(index)); }

size_t next_use(nki::Block& block, size_t from, const std::string& id) {
  for (size_t i = from + 1; i < block.size(); ++i)
    if (count_uses(*block[i], id) > 0) return i;
  return block.size();
}

std::string brief(nki::Stmt& s) {
  if (s.kind == nki::StmtKind::For) {
    auto& f = static_cast<nki::ForStmt&>(s);
    return fmt::format("for {} in {}", nki::print_expr(*f.target), nki::print_expr(*f.iter));
  }
  std::string name = assigned_name(s);
  if (!name.empty()) return fmt::format("{} = {}", name, nki::print_expr(*assigned_value(s)));
  if (s.kind == nki::StmtKind::AugAssign) {
    auto& a = static_cast<nki::AugAssignStmt&>(s);
    return fmt::format("{} {}= {}", nki::print_expr(*a.target), nki::symbol(a.op), nki::print_expr(*a.value));
  }
  if (s.kind == nki::StmtKind::Assign) {
    auto& a = static_cast<nki::AssignStmt&>(s);
    return fmt::format("{} = {}", nki::print_expr(*a.targets[0]), nki::print_expr(*a.value));
  }
  return fmt::format("statement on line {}", s.span.line);
}

}  // namespace agents::builtin
