// The container protocol of the core types (str, tuple, list, dict, range): indexing, slicing,
// iteration, membership and their methods. Object's default virtual methods call these, so every
// caller (interpreter or library) gets Python behaviour for core containers.
#pragma once

#include <optional>
#include <string_view>

#include "nki/value.h"

namespace nki::core {

struct SliceBounds {
  int64_t start = 0, stop = 0, step = 1, count = 0;
};
// Python's slice.indices(len): clamps start/stop, validates step.
SliceBounds resolve_slice(const SliceObj& s, int64_t len);
// An integer index into a sequence of `len` items (negative counts from the end); `what` names the
// sequence type in the message ("list index out of range").
int64_t sequence_index(const Value& index, int64_t len, std::string_view what);

Value get_item(Interpreter& in, Object& self, const Value& index);
void set_item(Interpreter& in, Object& self, const Value& index, const Value& value);
void del_item(Interpreter& in, Object& self, const Value& index);
std::unique_ptr<Iterator> iter(Interpreter& in, Object& self);
bool contains(Interpreter& in, Object& self, const Value& v);
// A bound method of a core container ("append" of a list), a data attribute of a slice or range
// (start, stop, step), or nullopt.
std::optional<Value> get_method(Interpreter& in, const ObjectPtr& self, std::string_view name);
size_t hash_value(const Value& v);

// Guards Python-level containers against exhausting memory ([0] * 10**10): throws a Limit error
// when `items` values of `item_bytes` each would not fit the active allocation budget.
void check_container_size(uint64_t items, uint64_t item_bytes);

}  // namespace nki::core

namespace nki::core {
bool has_method(const Object& self, std::string_view name);
// str.format / f-string support: format one value with a spec ("8.3f", ">10", "d", "e", "%", ...).
std::string format_value(Interpreter& in, const Value& v, std::string_view spec);
// "{} and {name:>4}".format(*args, **kwargs)
std::string format_str(Interpreter& in, const std::string& fmt, const CallArgs& args);
}  // namespace nki::core
