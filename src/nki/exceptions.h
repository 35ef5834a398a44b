// Python exceptions in kernels: the builtin exception classes, `raise`, and what `except`
// catches. An exception travels as an NkiError whose kind decides the evaluation status (a
// `raise ValueError(...)` that escapes the kernel is a runtime error like any other); errors
// raised by the interpreter or the libraries are matched by the class of their kind
// (ValueError for Value errors, ...) or the Python class they name (Diagnostic::py_type).
// Limit, sandbox, syntax and internal errors are never caught: `except` cannot defeat a limit.
#pragma once

#include <memory>
#include <string>

#include "nki/type_object.h"

namespace nki {

struct ExceptionClassObj : TypeObj {
  std::shared_ptr<ExceptionClassObj> base;  // null for BaseException
  ErrorKind kind;                           // the error kind an instance raises as
  std::map<std::string, Value, std::less<>> attrs;  // class attributes of a user subclass
  ExceptionClassObj(std::string name, std::shared_ptr<ExceptionClassObj> base, ErrorKind kind);
  bool is_subclass_of(const ExceptionClassObj& other) const;
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
};

struct ExceptionObj : Object {
  std::shared_ptr<ExceptionClassObj> cls;
  std::vector<Value> args;
  ExceptionObj(std::shared_ptr<ExceptionClassObj> c, std::vector<Value> a) : cls(std::move(c)), args(std::move(a)) {}
  std::string type_name() const override { return cls->name; }
  std::string repr() const override;
  std::string str() const override;
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
};

struct InterpState;

namespace detail {
// Installs BaseException, Exception and the standard subclasses as builtins.
void install_exceptions(InterpState& st);
// The NkiError a `raise value` throws (value: an exception class or instance).
[[noreturn]] void raise_value(InterpState& st, const Value& value);
// Whether `except` may catch an error of this kind at all.
bool catchable(ErrorKind kind);
// The exception object for a caught error (the raised object, or one built from the diagnostic).
Value exception_value(InterpState& st, const NkiError& e);
// Whether a caught error matches an `except` clause's class (or tuple of classes).
bool exception_matches(InterpState& st, const NkiError& e, const Value& spec);
// A user class deriving from an exception class (`class MyError(ValueError): ...`).
std::shared_ptr<ExceptionClassObj> make_exception_subclass(std::string name, std::shared_ptr<ExceptionClassObj> base);
// A library's exception class (numpy.linalg.LinAlgError, a ValueError), made once per
// interpreter: the errors the library raises with `name` as their Python type are instances of
// it, so `except np.linalg.LinAlgError` (and `except ValueError`) catches them. Not a builtin name.
std::shared_ptr<ExceptionClassObj> library_exception_class(InterpState& st, const std::string& name,
                                                           const std::string& base);
}  // namespace detail

}  // namespace nki
