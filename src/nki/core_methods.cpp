// Methods of the core containers: list.append, dict.get, str.join, ...
#include <algorithm>
#include <cctype>

#include <fmt/core.h>

#include "nki/core_ops.h"
#include "nki/core_types.h"
#include "nki/interpreter.h"

namespace nki::core {

namespace {

using Method = Value (*)(Interpreter&, const ObjectPtr&, CallArgs&);

void expect_args(const CallArgs& a, size_t min, size_t max, const char* name) {
  if (!a.kwargs.empty()) throw NkiError(ErrorKind::Type, fmt::format("{}() takes no keyword arguments", name));
  if (a.args.size() < min || a.args.size() > max) {
    std::string expected = min == max ? std::to_string(min) : fmt::format("{} to {}", min, max);
    throw NkiError(ErrorKind::Type,
                   fmt::format("{}() takes {} argument{} ({} given)", name, expected, max == 1 ? "" : "s", a.args.size()));
  }
}

std::vector<Value> collect(Interpreter& in, const Value& iterable) {
  std::vector<Value> out;
  auto it = in.iterate(iterable);
  for (Value v; it->next(v);) {
    check_container_size(out.size() + 1, sizeof(Value));
    out.push_back(std::move(v));
  }
  return out;
}

ListObj& list_of(const ObjectPtr& self) { return static_cast<ListObj&>(*self); }
DictObj& dict_of(const ObjectPtr& self) { return static_cast<DictObj&>(*self); }
const std::string& str_of(const ObjectPtr& self) { return static_cast<StrObj&>(*self).s; }

const std::string& str_arg(const Value& v, const char* method) {
  auto* s = v.as<StrObj>();
  if (!s) throw NkiError(ErrorKind::Type, fmt::format("{}() argument must be str, not {}", method, v.type_name()));
  return s->s;
}

// ---- list ----
Value list_append(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "list.append");
  auto& items = list_of(self).items;
  check_container_size(items.size() + 1, sizeof(Value));
  items.push_back(a.args[0]);
  list_of(self).meter();
  return Value();
}
Value list_extend(Interpreter& in, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "list.extend");
  auto more = collect(in, a.args[0]);
  auto& items = list_of(self).items;
  check_container_size(items.size() + more.size(), sizeof(Value));
  items.insert(items.end(), more.begin(), more.end());
  list_of(self).meter();
  return Value();
}
Value list_pop(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 1, "list.pop");
  auto& items = list_of(self).items;
  if (items.empty()) throw NkiError(ErrorKind::Index, "pop from empty list");
  int64_t i = a.args.empty() ? int64_t(items.size()) - 1 : sequence_index(a.args[0], int64_t(items.size()), "pop");
  Value v = items[size_t(i)];
  items.erase(items.begin() + i);
  return v;
}
Value list_insert(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 2, 2, "list.insert");
  auto& items = list_of(self).items;
  int64_t n = int64_t(items.size()), i = to_int(a.args[0], "list.insert() index");
  if (i < 0) i += n;
  i = std::clamp<int64_t>(i, 0, n);
  check_container_size(items.size() + 1, sizeof(Value));
  items.insert(items.begin() + i, a.args[1]);
  list_of(self).meter();
  return Value();
}
Value seq_index(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "index");
  const auto& items = self->type() == ObjType::List ? list_of(self).items : static_cast<TupleObj&>(*self).items;
  for (size_t i = 0; i < items.size(); ++i)
    if (values_equal(items[i], a.args[0])) return Value::from_int(int64_t(i));
  throw NkiError(ErrorKind::Value, fmt::format("{} is not in {}", a.args[0].repr(), self->type_name()));
}
Value seq_count(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "count");
  const auto& items = self->type() == ObjType::List ? list_of(self).items : static_cast<TupleObj&>(*self).items;
  return Value::from_int(std::count_if(items.begin(), items.end(), [&](const Value& v) { return values_equal(v, a.args[0]); }));
}
Value list_remove(Interpreter& in, const ObjectPtr& self, CallArgs& a) {
  Value index = seq_index(in, self, a);
  list_of(self).items.erase(list_of(self).items.begin() + index.as_int());
  return Value();
}
Value list_copy(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 0, "list.copy");
  return make_list(list_of(self).items);
}
Value list_reverse(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 0, "list.reverse");
  std::reverse(list_of(self).items.begin(), list_of(self).items.end());
  return Value();
}
Value list_clear(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 0, "list.clear");
  list_of(self).items.clear();
  return Value();
}

// ---- dict ----
Value dict_get(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 2, "dict.get");
  if (Value* v = dict_of(self).find(a.args[0])) return *v;
  return a.args.size() > 1 ? a.args[1] : Value();
}
Value dict_items(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 0, "dict.items");
  std::vector<Value> out;
  for (auto& [k, v] : dict_of(self).items) out.push_back(make_tuple({k, v}));
  return make_list(std::move(out));
}
Value dict_keys(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 0, "dict.keys");
  std::vector<Value> out;
  for (auto& kv : dict_of(self).items) out.push_back(kv.first);
  return make_list(std::move(out));
}
Value dict_values(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 0, "dict.values");
  std::vector<Value> out;
  for (auto& kv : dict_of(self).items) out.push_back(kv.second);
  return make_list(std::move(out));
}
Value dict_pop(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 2, "dict.pop");
  DictObj& dict = dict_of(self);
  if (size_t i = dict.position(a.args[0]); i != KeyIndex::npos) {
    Value v = dict.items[i].second;
    dict.erase(i);
    return v;
  }
  if (a.args.size() > 1) return a.args[1];
  throw NkiError(ErrorKind::Index, fmt::format("key {} is not in the dict", a.args[0].repr()));
}
Value dict_update(Interpreter& in, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "dict.update");
  auto* other = a.args[0].as<DictObj>();
  if (!other) throw NkiError(ErrorKind::Type, "dict.update() argument must be a dict");
  for (auto& [k, v] : std::vector(other->items)) set_item(in, *self, k, v);
  return Value();
}
Value dict_setdefault(Interpreter& in, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 2, "dict.setdefault");
  if (Value* v = dict_of(self).find(a.args[0])) return *v;
  Value fallback = a.args.size() > 1 ? a.args[1] : Value();
  set_item(in, *self, a.args[0], fallback);
  return fallback;
}
Value dict_copy(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 0, "dict.copy");
  auto out = std::make_shared<DictObj>();
  out->items = dict_of(self).items;
  return Value(out);
}

// ---- str ----
Value str_join(Interpreter& in, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "str.join");
  std::string out;
  bool first = true;
  for (const Value& v : collect(in, a.args[0])) {
    if (!first) out += str_of(self);
    out += str_arg(v, "str.join");
    first = false;
    check_container_size(out.size(), 1);
  }
  return make_str(std::move(out));
}
Value str_split(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 1, "str.split");
  const std::string& s = str_of(self);
  std::vector<Value> parts;
  if (a.args.empty() || a.args[0].is_none()) {
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && isspace(static_cast<unsigned char>(s[i]))) ++i;
      size_t j = i;
      while (j < s.size() && !isspace(static_cast<unsigned char>(s[j]))) ++j;
      if (j > i) parts.push_back(make_str(s.substr(i, j - i)));
      i = j;
    }
    return make_list(std::move(parts));
  }
  const std::string& sep = str_arg(a.args[0], "str.split");
  if (sep.empty()) throw NkiError(ErrorKind::Value, "empty separator");
  size_t start = 0;
  for (size_t pos; (pos = s.find(sep, start)) != std::string::npos; start = pos + sep.size())
    parts.push_back(make_str(s.substr(start, pos - start)));
  parts.push_back(make_str(s.substr(start)));
  return make_list(std::move(parts));
}
Value str_startswith(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "str.startswith");
  return Value::from_bool(str_of(self).rfind(str_arg(a.args[0], "str.startswith"), 0) == 0);
}
Value str_endswith(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "str.endswith");
  const std::string &s = str_of(self), &suffix = str_arg(a.args[0], "str.endswith");
  return Value::from_bool(s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0);
}
Value str_replace(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 2, 2, "str.replace");
  std::string s = str_of(self);
  const std::string &from = str_arg(a.args[0], "str.replace"), &to = str_arg(a.args[1], "str.replace");
  if (from.empty()) return make_str(s);
  std::string out;
  size_t start = 0;
  for (size_t pos; (pos = s.find(from, start)) != std::string::npos; start = pos + from.size()) {
    out += s.substr(start, pos - start) + to;
    check_container_size(out.size(), 1);
  }
  return make_str(out + s.substr(start));
}
Value strip_impl(const ObjectPtr& self, CallArgs& a, bool left, bool right, const char* name) {
  expect_args(a, 0, 1, name);
  std::string chars = a.args.empty() || a.args[0].is_none() ? " \t\n\r\f\v" : str_arg(a.args[0], name);
  const std::string& s = str_of(self);
  size_t b = left ? s.find_first_not_of(chars) : 0;
  if (b == std::string::npos) return make_str("");
  size_t e = right ? s.find_last_not_of(chars) + 1 : s.size();
  return make_str(s.substr(b, e - b));
}
Value str_strip(Interpreter&, const ObjectPtr& self, CallArgs& a) { return strip_impl(self, a, true, true, "str.strip"); }
Value str_lstrip(Interpreter&, const ObjectPtr& self, CallArgs& a) { return strip_impl(self, a, true, false, "str.lstrip"); }
Value str_rstrip(Interpreter&, const ObjectPtr& self, CallArgs& a) { return strip_impl(self, a, false, true, "str.rstrip"); }
Value str_upper(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 0, "str.upper");
  std::string s = str_of(self);
  for (char& c : s) c = char(toupper(static_cast<unsigned char>(c)));
  return make_str(s);
}
Value str_lower(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 0, 0, "str.lower");
  std::string s = str_of(self);
  for (char& c : s) c = char(tolower(static_cast<unsigned char>(c)));
  return make_str(s);
}
Value str_find(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "str.find");
  size_t pos = str_of(self).find(str_arg(a.args[0], "str.find"));
  return Value::from_int(pos == std::string::npos ? -1 : int64_t(pos));
}
// str.isdigit / isalpha / isalnum / isspace: every character of the class, and at least one;
// str.isupper / islower: at least one cased character, and none of the other case (ASCII, as the
// sizes and names kernels test are).
Value str_all_chars(const ObjectPtr& self, CallArgs& a, const char* name, int (*is)(int)) {
  expect_args(a, 0, 0, name);
  const std::string& s = str_of(self);
  bool all = !s.empty();
  for (char c : s) all = all && is(static_cast<unsigned char>(c));
  return Value::from_bool(all);
}
Value str_isdigit(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  return str_all_chars(self, a, "str.isdigit", [](int c) { return std::isdigit(c); });
}
Value str_isalpha(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  return str_all_chars(self, a, "str.isalpha", [](int c) { return std::isalpha(c); });
}
Value str_isalnum(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  return str_all_chars(self, a, "str.isalnum", [](int c) { return std::isalnum(c); });
}
Value str_isspace(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  return str_all_chars(self, a, "str.isspace", [](int c) { return std::isspace(c); });
}
Value str_case(const ObjectPtr& self, CallArgs& a, bool upper, const char* name) {
  expect_args(a, 0, 0, name);
  bool cased = false;
  for (char ch : str_of(self)) {
    int c = static_cast<unsigned char>(ch);
    if (upper ? std::islower(c) : std::isupper(c)) return Value::from_bool(false);
    cased = cased || std::isupper(c) || std::islower(c);
  }
  return Value::from_bool(cased);
}
Value str_isupper(Interpreter&, const ObjectPtr& self, CallArgs& a) { return str_case(self, a, true, "str.isupper"); }
Value str_islower(Interpreter&, const ObjectPtr& self, CallArgs& a) { return str_case(self, a, false, "str.islower"); }
Value str_rfind(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "str.rfind");
  size_t pos = str_of(self).rfind(str_arg(a.args[0], "str.rfind"));
  return Value::from_int(pos == std::string::npos ? -1 : int64_t(pos));
}
// str.count: non-overlapping occurrences; an empty substring occurs len + 1 times.
Value str_count(Interpreter&, const ObjectPtr& self, CallArgs& a) {
  expect_args(a, 1, 1, "str.count");
  const std::string &s = str_of(self), &sub = str_arg(a.args[0], "str.count");
  if (sub.empty()) return Value::from_int(int64_t(s.size()) + 1);
  int64_t n = 0;
  for (size_t pos = s.find(sub); pos != std::string::npos; pos = s.find(sub, pos + sub.size())) ++n;
  return Value::from_int(n);
}

Value str_format(Interpreter& in, const ObjectPtr& self, CallArgs& a) {
  return make_str(format_str(in, str_of(self), a));
}

struct MethodEntry {
  ObjType type;
  const char* name;
  Method fn;
};

const MethodEntry kMethods[] = {
    {ObjType::List, "append", list_append},     {ObjType::List, "extend", list_extend},
    {ObjType::List, "pop", list_pop},           {ObjType::List, "insert", list_insert},
    {ObjType::List, "index", seq_index},        {ObjType::List, "count", seq_count},
    {ObjType::List, "remove", list_remove},     {ObjType::List, "copy", list_copy},
    {ObjType::List, "reverse", list_reverse},   {ObjType::List, "clear", list_clear},
    {ObjType::Tuple, "index", seq_index},       {ObjType::Tuple, "count", seq_count},
    {ObjType::Dict, "get", dict_get},           {ObjType::Dict, "items", dict_items},
    {ObjType::Dict, "keys", dict_keys},         {ObjType::Dict, "values", dict_values},
    {ObjType::Dict, "pop", dict_pop},           {ObjType::Dict, "update", dict_update},
    {ObjType::Dict, "setdefault", dict_setdefault}, {ObjType::Dict, "copy", dict_copy},
    {ObjType::Str, "join", str_join},           {ObjType::Str, "split", str_split},
    {ObjType::Str, "startswith", str_startswith}, {ObjType::Str, "endswith", str_endswith},
    {ObjType::Str, "replace", str_replace},     {ObjType::Str, "strip", str_strip},
    {ObjType::Str, "lstrip", str_lstrip},       {ObjType::Str, "rstrip", str_rstrip},
    {ObjType::Str, "upper", str_upper},         {ObjType::Str, "lower", str_lower},
    {ObjType::Str, "find", str_find},           {ObjType::Str, "format", str_format},
    {ObjType::Str, "rfind", str_rfind},         {ObjType::Str, "count", str_count},
    {ObjType::Str, "isdigit", str_isdigit},     {ObjType::Str, "isalpha", str_isalpha},
    {ObjType::Str, "isalnum", str_isalnum},     {ObjType::Str, "isspace", str_isspace},
    {ObjType::Str, "isupper", str_isupper},     {ObjType::Str, "islower", str_islower},
};

// The read-only data attributes of slice and range objects (`cols.stop - cols.start` sizing a tile
// from the slice a helper was given).
std::optional<Value> data_attribute(const Object& self, std::string_view name) {
  if (name != "start" && name != "stop" && name != "step") return std::nullopt;
  if (self.type() == ObjType::Slice) {
    const auto& s = static_cast<const SliceObj&>(self);
    return name == "start" ? s.start : name == "stop" ? s.stop : s.step;
  }
  if (self.type() == ObjType::Range) {
    const auto& r = static_cast<const RangeObj&>(self);
    return Value::from_int(name == "start" ? r.start : name == "stop" ? r.stop : r.step);
  }
  return std::nullopt;
}

}  // namespace

std::optional<Value> get_method(Interpreter& in, const ObjectPtr& self, std::string_view name) {
  if (auto v = data_attribute(*self, name)) return v;
  for (const MethodEntry& m : kMethods) {
    if (m.type != self->type() || name != m.name) continue;
    std::string qualified = fmt::format("{}.{}", self->type_name(), m.name);
    Method fn = m.fn;
    return Value(std::make_shared<BuiltinObj>(
        std::move(qualified), [self, fn](Interpreter& in2, CallArgs& args) { return fn(in2, self, args); }));
  }
  return std::nullopt;
}

bool has_method(const Object& self, std::string_view name) {
  if (data_attribute(self, name)) return true;
  for (const MethodEntry& m : kMethods)
    if (m.type == self.type() && name == m.name) return true;
  return false;
}

}  // namespace nki::core
