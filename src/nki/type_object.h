// A type object usable with isinstance() and callable as a constructor: the builtin types (int,
// float, bool, str, tuple, list, dict) and library types (np.ndarray) are TypeObj values.
#pragma once

#include <functional>

#include "nki/value.h"

namespace nki {

struct TypeObj : Object {
  std::string name;
  std::function<bool(const Value&)> instance_check;
  NativeFn construct;  // empty: the type cannot be instantiated from Python code
  TypeObj(std::string n, std::function<bool(const Value&)> check, NativeFn ctor = nullptr)
      : name(std::move(n)), instance_check(std::move(check)), construct(std::move(ctor)) {}
  std::string type_name() const override { return "type"; }
  std::string repr() const override { return "<class '" + name + "'>"; }
  Value call(Interpreter& in, CallArgs& args) override;
};

}  // namespace nki
