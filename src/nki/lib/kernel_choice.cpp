#include "nki/lib/kernel_choice.h"

#include <map>
#include <mutex>

#include "nki/interp_impl.h"
#include "nki/interpreter.h"
#include "nki/lib/kernel_launch.h"
#include "nki/lib/modules.h"

namespace nki::lib {

namespace {

KernelChoice choose_uncached(const std::string& path, const std::string& text, const std::string& entry) {
  KernelChoice choice;
  // The bounds of a suite's kernel check (bench::check_kernel_text): a file's top level defines
  // functions and constants; one that runs longer is not a kernel file anyone evaluates.
  Limits limits;
  limits.max_seconds = 20;
  limits.max_steps = 20'000'000;
  Interpreter in(limits);
  install_builtin_modules(in);
  auto src = std::make_shared<SourceFile>();
  src->path = path;
  src->text = text;
  std::shared_ptr<ModuleObj> module;
  try {
    module = in.load_module(src);
  } catch (const NkiError& e) {
    choice.load_error = e.diag;
    return choice;
  } catch (const std::exception& e) {  // an array error from top-level numpy code
    Diagnostic d;
    d.kind = ErrorKind::Value;
    d.loc.file = src;
    d.message = e.what();
    choice.load_error = d;
    return choice;
  }
  Value fn = find_kernel_entry(*module, entry, &choice.problem);
  if (fn.is_none()) return choice;
  const FunctionCode* def = entry_definition(fn);
  if (!def) {
    choice.not_a_definition = true;
    return choice;
  }
  choice.function = def->name;
  choice.line = def->span.line;
  // The name it is found by, as find_kernel_entry looks: --entry, the default names, else any
  // module-level name holding the same object (the file's one kernel).
  auto same = [&](const Value& v) {
    return v.is_object() && fn.is_object() ? v.object().get() == fn.object().get() : false;
  };
  std::vector<std::string> names;
  if (!entry.empty()) names.push_back(entry);
  names.insert(names.end(), {"kernel", "optimized_kernel"});
  for (const auto& name : names)
    if (auto it = module->attrs.find(name); choice.attribute.empty() && it != module->attrs.end() && same(it->second))
      choice.attribute = name;
  for (const auto& [name, value] : module->attrs)
    if (choice.attribute.empty() && same(value)) choice.attribute = name;
  return choice;
}

}  // namespace

std::string KernelChoice::message(std::string_view choose_with) const {
  if (ok()) return "";
  if (load_error) return render(*load_error);
  if (not_a_definition) return "the function to run is not a function defined in the kernel file";
  return problem.message(choose_with);
}

KernelChoice choose_kernel(const std::string& path, const std::string& text, const std::string& entry) {
  // The rewrites lift one text many times (listing, applying, checking the printed result):
  // the file is loaded once per text. Bounded so a long search does not hold every version.
  static std::mutex mutex;
  static std::map<std::string, KernelChoice> memo;
  std::string key = path + '\0' + entry + '\0' + text;
  {
    std::lock_guard lock(mutex);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  KernelChoice choice = choose_uncached(path, text, entry);
  std::lock_guard lock(mutex);
  if (memo.size() >= 64) memo.clear();
  memo.emplace(std::move(key), choice);
  return choice;
}

const FunctionCode* entry_definition(const Value& fn) {
  Value f = fn;
  if (fn.is_object())
    if (auto* jit = dynamic_cast<const JitKernelObj*>(fn.object().get())) f = jit->fn;
  auto* function = f.as<FunctionObj>();
  return function && function->code->lambda_body == nullptr ? function->code.get() : nullptr;
}

const FunctionCode* chosen_definition(const ModuleAst& module, const KernelChoice& choice) {
  if (!choice.ok()) return nullptr;
  for (const auto& s : module.body) {
    if (s->kind != StmtKind::FunctionDef) continue;
    const FunctionCode* code = static_cast<const FunctionDefStmt&>(*s).code.get();
    if (code->name == choice.function && static_cast<int>(code->span.line) == choice.line) return code;
  }
  return nullptr;
}

namespace {

const FunctionCode* find_def(const Block& block, const KernelChoice& choice) {
  for (const auto& s : block) {
    const FunctionCode* found = nullptr;
    switch (s->kind) {
      case StmtKind::FunctionDef: {
        const FunctionCode* code = static_cast<const FunctionDefStmt&>(*s).code.get();
        if (code->name == choice.function && static_cast<int>(code->span.line) == choice.line) return code;
        found = find_def(code->body, choice);
        break;
      }
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(*s);
        found = find_def(i.body, choice);
        if (!found) found = find_def(i.orelse, choice);
        break;
      }
      case StmtKind::For: found = find_def(static_cast<const ForStmt&>(*s).body, choice); break;
      case StmtKind::While: found = find_def(static_cast<const WhileStmt&>(*s).body, choice); break;
      case StmtKind::With: found = find_def(static_cast<const WithStmt&>(*s).body, choice); break;
      case StmtKind::Try: {
        auto& t = static_cast<const TryStmt&>(*s);
        found = find_def(t.body, choice);
        for (const auto& h : t.handlers) found = found ? found : find_def(h.body, choice);
        if (!found) found = find_def(t.orelse, choice);
        if (!found) found = find_def(t.finalbody, choice);
        break;
      }
      default: break;
    }
    if (found) return found;
  }
  return nullptr;
}

}  // namespace

const FunctionCode* nested_definition(const ModuleAst& module, const KernelChoice& choice) {
  if (!choice.ok()) return nullptr;
  for (const auto& s : module.body) {
    if (s->kind != StmtKind::FunctionDef) continue;
    if (const FunctionCode* code = find_def(static_cast<const FunctionDefStmt&>(*s).code->body, choice)) return code;
  }
  return nullptr;
}

}  // namespace nki::lib
