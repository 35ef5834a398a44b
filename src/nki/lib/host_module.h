// Harness imports: a kernel file as people publish it imports host-side modules (argparse, os,
// time, torch, pytest) for the driver code around its kernels. Such an import binds a
// placeholder; nothing of the module is ever loaded or run, so untrusted code never reaches
// files, processes or the network through it.
#pragma once

#include "nki/value.h"

namespace nki {
class Interpreter;
}

namespace nki::lib {

// The placeholder of `path` (a module, or a name from-imported from one) of host module
// `module`. In the statements of a module body itself (Interpreter::at_module_top_level),
// attribute access, calls and subscripts give further placeholders and assignments into it are
// dropped: decorators such as `@pytest.mark.parametrize(...)` and `os.environ[...] = ...` at the
// top level do nothing. Any use inside a function (a kernel, a helper, a reference's forward)
// is a HostOnly error, which `except` cannot catch.
struct HostOnlyObj : Object {
  std::string module, path;
  HostOnlyObj(std::string m, std::string p) : module(std::move(m)), path(std::move(p)) {}
  std::string type_name() const override { return "host-only module"; }
  std::string repr() const override { return "<host-only " + path + ">"; }
  bool truthy() const override;
  Value get_attr(Interpreter& in, std::string_view name) override;
  void set_attr(Interpreter& in, std::string_view name, const Value& value) override;
  Value call(Interpreter& in, CallArgs& args) override;
  Value get_item(Interpreter& in, const Value& index) override;
  void set_item(Interpreter& in, const Value& index, const Value& value) override;
  void del_item(Interpreter& in, const Value& index) override { refuse(); }
  Value enter(Interpreter& in) override { refuse(); }
  std::optional<Value> binary_op(Interpreter&, BinOp, const Value&, bool) override { refuse(); }
  std::optional<Value> compare(Interpreter&, CmpOp, const Value&, bool) override { refuse(); }
  std::optional<Value> unary_op(Interpreter&, UnOp) override { refuse(); }
  std::unique_ptr<Iterator> iter(Interpreter& in) override { refuse(); }
  bool contains(Interpreter& in, const Value& v) override { refuse(); }
  [[noreturn]] void refuse() const;
};

// Makes every import outside the module registry bind a HostOnlyObj (Interpreter::
// set_host_module_binder).
void install_host_modules(Interpreter& in);

}  // namespace nki::lib
