#include "nki/lib/kernel_entry.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nki/interp_impl.h"
#include "nki/lib/kernel_launch.h"

namespace nki::lib {

namespace {

const JitKernelObj* as_kernel(const Value& v) {
  return v.is_object() ? dynamic_cast<const JitKernelObj*>(v.object().get()) : nullptr;
}

// The statement a wrapper's body is, after an optional docstring; null when there are others.
const Stmt* only_statement(const FunctionCode& code) {
  const Block& body = code.body;
  size_t first = 0;
  if (body.size() == 2 && body[0]->kind == StmtKind::Expr) {
    const Expr& e = *static_cast<const ExprStmt&>(*body[0]).value;
    if (e.kind == ExprKind::Constant && static_cast<const ConstantExpr&>(e).value.is(ObjType::Str)) first = 1;
  }
  return body.size() == first + 1 ? body[first].get() : nullptr;
}

// The call a statement is: `return CALL` or `CALL`.
const CallExpr* statement_call(const Stmt& s) {
  const Expr* e = nullptr;
  if (s.kind == StmtKind::Return) e = static_cast<const ReturnStmt&>(s).value.get();
  if (s.kind == StmtKind::Expr) e = static_cast<const ExprStmt&>(s).value.get();
  return e && e->kind == ExprKind::Call ? static_cast<const CallExpr*>(e) : nullptr;
}

// An argument that passes a wrapper's parameter (or a constant) along unchanged.
bool passed_along(const Expr& e, const FunctionCode& code) {
  if (e.kind == ExprKind::Constant) return true;
  if (e.kind != ExprKind::Name) return false;
  const auto& n = static_cast<const NameExpr&>(e);
  if (n.scope != NameScope::Local) return false;
  return std::any_of(code.params.begin(), code.params.end(), [&](const Parameter& p) { return p.slot == n.index; });
}

}  // namespace

const Object* host_wrapper_target(const Value& kernel) {
  const JitKernelObj* k = as_kernel(kernel);
  if (!k || !k->harness_only) return nullptr;
  auto* f = k->fn.as<FunctionObj>();
  if (!f || !f->env) return nullptr;
  const Stmt* s = only_statement(*f->code);
  const CallExpr* call = s ? statement_call(*s) : nullptr;
  if (!call || !call->simple) return nullptr;
  const Expr* callee = call->func.get();
  if (callee->kind == ExprKind::Subscript) callee = static_cast<const SubscriptExpr&>(*callee).value.get();  // K[grid]
  if (callee->kind != ExprKind::Name) return nullptr;
  const auto& name = static_cast<const NameExpr&>(*callee);
  if (name.scope != NameScope::Global || name.index >= f->env->globals.size()) return nullptr;
  const Value& target = f->env->globals[name.index];
  const JitKernelObj* launched = as_kernel(target);
  if (!launched || launched == k) return nullptr;
  for (const ExprPtr& a : call->args)
    if (!passed_along(*a, *f->code)) return nullptr;
  for (const Keyword& kw : call->keywords)
    if (kw.name.empty() || !passed_along(*kw.value, *f->code)) return nullptr;
  return launched;
}

std::string EntryProblem::message(std::string_view choose_with) const {
  std::vector<std::string> quoted;
  for (const auto& k : kernels) quoted.push_back("'" + k + "'");
  std::string list = fmt::format("{}", fmt::join(quoted, ", "));
  switch (kind) {
    case Kind::None: return "";
    case Kind::NoSuchFunction:
      return kernels.empty() ? fmt::format("the kernel file defines no function named '{}'", entry)
                             : fmt::format("the kernel file defines no function named '{}' (its kernels: {})", entry, list);
    case Kind::NoKernel:
      return "kernel file defines no function 'kernel' (or 'optimized_kernel') and no @nki.jit function";
    case Kind::SeveralKernels:
      if (choose_with.empty())
        return fmt::format("kernel file defines several kernels ({}) and none named 'kernel': name the one to run "
                           "'kernel' (or add `kernel = {}`)",
                           list, kernels.front());
      return fmt::format("kernel file defines several kernels ({}) and none named 'kernel': choose the one to run "
                         "with {} (e.g. {} {})",
                         list, choose_with, choose_with.substr(0, choose_with.find(' ')), kernels.front());
  }
  return "";
}

Value find_kernel_entry(const ModuleObj& module, const std::string& entry, EntryProblem* problem) {
  EntryProblem scratch;
  EntryProblem& why = problem ? *problem : scratch;
  why = EntryProblem{};
  // The file's kernels by object (an alias names the same kernel), under their first name
  // (attrs iterate in name order); host wrappers launch one of them and are not counted.
  std::map<const Object*, std::pair<std::string, Value>> kernels;
  for (const auto& [name, value] : module.attrs)
    if (auto* k = as_kernel(value)) kernels.try_emplace(k, name, value);
  std::erase_if(kernels, [](const auto& k) { return host_wrapper_target(k.second.second) != nullptr; });
  for (const auto& [k, named] : kernels) why.kernels.push_back(named.first);
  std::sort(why.kernels.begin(), why.kernels.end());
  if (!entry.empty()) {
    auto it = module.attrs.find(entry);
    if (it != module.attrs.end()) return it->second;
    why.kind = EntryProblem::Kind::NoSuchFunction;
    why.entry = entry;
    return Value();
  }
  for (const char* name : {"kernel", "optimized_kernel"}) {
    auto it = module.attrs.find(name);
    if (it != module.attrs.end()) return it->second;
  }
  if (kernels.size() == 1) return kernels.begin()->second.second;
  why.kind = kernels.empty() ? EntryProblem::Kind::NoKernel : EntryProblem::Kind::SeveralKernels;
  return Value();
}

Value find_kernel_entry(const ModuleObj& module, const std::string& entry, std::string* problem) {
  EntryProblem why;
  Value fn = find_kernel_entry(module, entry, &why);
  if (problem) *problem = why.message();
  return fn;
}

}  // namespace nki::lib
