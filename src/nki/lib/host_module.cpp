#include "nki/lib/host_module.h"

#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/kernel_context.h"

namespace nki::lib {

namespace {

// Harness code at the top level of a kernel file (decorators, environment settings) does
// nothing; the same code in a function, or reached while a kernel runs, is refused.
bool deferred(Interpreter& in) { return in.at_module_top_level() && !KernelContext::active(); }

}  // namespace

void HostOnlyObj::refuse() const {
  throw NkiError(ErrorKind::HostOnly,
                 fmt::format("module '{}' is host-only harness code and is not available in kernels", module));
}

bool HostOnlyObj::truthy() const {
  if (KernelContext::active()) refuse();
  return true;
}

Value HostOnlyObj::get_attr(Interpreter& in, std::string_view name) {
  if (!deferred(in)) refuse();
  return Value(std::make_shared<HostOnlyObj>(module, fmt::format("{}.{}", path, name)));
}

void HostOnlyObj::set_attr(Interpreter& in, std::string_view, const Value&) {
  if (!deferred(in)) refuse();
}

Value HostOnlyObj::call(Interpreter& in, CallArgs&) {
  if (!deferred(in)) refuse();
  return Value(std::make_shared<HostOnlyObj>(module, path + "(...)"));
}

Value HostOnlyObj::get_item(Interpreter& in, const Value&) {
  if (!deferred(in)) refuse();
  return Value(std::make_shared<HostOnlyObj>(module, path + "[...]"));
}

void HostOnlyObj::set_item(Interpreter& in, const Value&, const Value&) {
  if (!deferred(in)) refuse();
}

void install_host_modules(Interpreter& in) {
  in.set_host_module_binder([](const std::string& module, const std::string& path) {
    return Value(std::make_shared<HostOnlyObj>(module, path));
  });
}

}  // namespace nki::lib
