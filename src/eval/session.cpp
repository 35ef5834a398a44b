#include "eval/session.h"

#include <fmt/core.h>

#include "base/cpu_clock.h"
#include "eval/kernel_exec.h"
#include "nki/lib/array_value.h"

namespace eval {

nki::Interpreter::Deadlines deadlines_from_now(const nki::Limits& limits) {
  nki::Interpreter::Deadlines d;
  d.wall = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.max_seconds));
  d.thread_cpu = limits.max_cpu_seconds > 0 ? base::thread_cpu_seconds() + limits.max_cpu_seconds : 0;
  d.max_seconds = limits.max_seconds;
  d.max_cpu_seconds = limits.max_cpu_seconds;
  return d;
}

Session::Session(const nki::Limits& limits, const nki::Interpreter::Deadlines& deadlines) {
  in_ = std::make_unique<nki::Interpreter>(limits);
  in_->set_deadlines(deadlines);
  in_->charge_steps(0);  // no time left: the same limit error the interpreter gives mid-run
  install_modules(*in_);
}

std::shared_ptr<const nki::CompiledModule> Session::compile(const std::string& path, const std::string& text) {
  auto src = std::make_shared<nki::SourceFile>();
  src->path = path;
  src->text = text;
  return in_->compile(std::move(src));
}

std::shared_ptr<nki::ModuleObj> Session::load(const std::shared_ptr<const nki::CompiledModule>& compiled) {
  return in_->load_module(compiled);
}

nki::Value Session::call(const nki::Value& fn, std::vector<nki::Value> args) {
  return in_->call(fn, nki::CallArgs{std::move(args), {}});
}

void Session::seed_numpy(int seed) {
  nki::Value np = in_->import_module("numpy");
  nki::Value seed_fn = in_->get_attr(in_->get_attr(np, "random"), "seed");
  call(seed_fn, {nki::Value::from_int(seed)});
}

nki::Value find_function(const nki::ModuleObj& module, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (auto it = module.attrs.find(name); it != module.attrs.end()) return it->second;
  return {};
}

std::vector<nki::Value> items_of(const nki::Value& v) {
  if (auto* l = v.as<nki::ListObj>()) return l->items;
  if (auto* t = v.as<nki::TupleObj>()) return t->items;
  return {v};
}

nki::Value shape_only(const nki::Value& v) {
  if (auto* a = v.as<nki::lib::NdArrayObj>(); a && !a->is_scalar)
    return nki::lib::make_array(tensor::Array::shape_only(a->array.shape(), a->array.dtype()));
  return v;
}

std::vector<tensor::Array> arrays_of(nki::Interpreter& in, const nki::Value& v) {
  std::vector<tensor::Array> out;
  for (const auto& item : items_of(v)) out.push_back(nki::lib::to_array(in, item));
  return out;
}

}  // namespace eval
