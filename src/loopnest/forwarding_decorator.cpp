// `@nki.jit @checked def kernel(x): ...` with `checked` a module function returning a wrapper that
// checks its arguments and forwards them (`@functools.wraps(fn) def wrapper(*args, **kwargs): for
// a in args: assert ...; return fn(*args, **kwargs)`): the run calls the wrapper (the kernel choice
// names it), but the kernel's work is the decorated def's, which the wrapper calls with exactly
// the arguments it got. The lift reads that def (probe p26; before, "cannot lift the kernel
// 'wrapper' defined inside a function"), so a move edits the author's kernel body and the
// decorator and its wrapper are printed as written, their host checks kept (they still run).
#include "loopnest/forwarding_decorator.h"

namespace loopnest {

namespace {

using namespace nki;

// The first `count` statements of `b` only check (assert / raise under conditions and loops over the arguments):
// nothing they do reaches the forwarded call.
bool checks_only(const Block& b, size_t count) {
  for (size_t n = 0; n < count; ++n) {
    const auto& s = b[n];
    switch (s->kind) {
      case StmtKind::Assert: case StmtKind::Raise: case StmtKind::Pass: break;
      case StmtKind::Expr:  // a docstring
        if (static_cast<const ExprStmt&>(*s).value->kind != ExprKind::Constant) return false;
        break;
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(*s);
        if (!checks_only(i.body, i.body.size()) || !checks_only(i.orelse, i.orelse.size())) return false;
        break;
      }
      case StmtKind::For: {
        auto& f = static_cast<const ForStmt&>(*s);
        if (!checks_only(f.body, f.body.size()) || !checks_only(f.orelse, f.orelse.size())) return false;
        break;
      }
      default: return false;
    }
  }
  return true;
}

bool is_name(const Expr& e, const std::string& id) {
  return e.kind == ExprKind::Name && static_cast<const NameExpr&>(e).id == id;
}

// `wrapper(*args, **kwargs)` whose body checks and then returns `fn(*args, **kwargs)`.
bool forwards(const FunctionCode& wrapper, const std::string& fn) {
  if (wrapper.params.size() != 2 || wrapper.params[0].kind != ParamKind::VarArgs ||
      wrapper.params[1].kind != ParamKind::VarKwargs || wrapper.body.empty())
    return false;
  const Stmt& last = *wrapper.body.back();
  if (last.kind != StmtKind::Return || !static_cast<const ReturnStmt&>(last).value) return false;
  const Expr& v = *static_cast<const ReturnStmt&>(last).value;
  if (v.kind != ExprKind::Call) return false;
  auto& c = static_cast<const CallExpr&>(v);
  if (!is_name(*c.func, fn) || c.args.size() != 1 || c.args[0]->kind != ExprKind::Starred ||
      !is_name(*static_cast<const StarredExpr&>(*c.args[0]).value, wrapper.params[0].name) || c.keywords.size() != 1 ||
      !c.keywords[0].name.empty() || !is_name(*c.keywords[0].value, wrapper.params[1].name))
    return false;
  return checks_only(wrapper.body, wrapper.body.size() - 1);
}

}  // namespace

const FunctionCode* forwarded_definition(const ModuleAst& module, const FunctionCode& wrapper,
                                         const std::string& bound_as) {
  if (bound_as.empty()) return nullptr;
  for (const auto& s : module.body) {
    if (s->kind != StmtKind::FunctionDef) continue;
    auto& def = static_cast<const FunctionDefStmt&>(*s);
    if (def.code->name != bound_as) continue;
    // Its decorators: nki.jit (or another dotted name) and the one plain-named decorator made the
    // wrapper; the decorator is a module function of one parameter returning the wrapper def.
    for (const auto& d : def.decorators) {
      if (d->kind != ExprKind::Name) continue;
      const std::string& deco = static_cast<const NameExpr&>(*d).id;
      for (const auto& t : module.body) {
        if (t->kind != StmtKind::FunctionDef) continue;
        auto& f = static_cast<const FunctionDefStmt&>(*t);
        if (f.code->name != deco || f.code->params.size() != 1 || f.code->body.size() != 2) continue;
        const Stmt& inner = *f.code->body[0];
        const Stmt& ret = *f.code->body[1];
        if (inner.kind != StmtKind::FunctionDef || static_cast<const FunctionDefStmt&>(inner).code.get() != &wrapper)
          continue;
        if (ret.kind != StmtKind::Return || !static_cast<const ReturnStmt&>(ret).value ||
            !is_name(*static_cast<const ReturnStmt&>(ret).value, wrapper.name))
          continue;
        if (forwards(wrapper, f.code->params[0].name)) return def.code.get();
      }
    }
  }
  return nullptr;
}

}  // namespace loopnest
