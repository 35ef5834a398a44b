// The value model: Value, argument binding, and the default Object protocol (which implements the
// core containers through core_ops so that libraries calling obj->get_item() on a tuple just work).
#include "nki/value.h"

#include <charconv>
#include <cstring>
#include <cmath>

#include <fmt/core.h>

#include "nki/classes.h"
#include "nki/core_ops.h"
#include "nki/nesting.h"
#include "tensor/array.h"

namespace nki {

const char* symbol(BinOp op) {
  static const char* const kSymbols[] = {"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"};
  return kSymbols[static_cast<int>(op)];
}
const char* symbol(CmpOp op) {
  static const char* const kSymbols[] = {"==", "!=", "<", "<=", ">", ">="};
  return kSymbols[static_cast<int>(op)];
}
const char* symbol(UnOp op) {
  static const char* const kSymbols[] = {"-", "+", "not ", "~"};
  return kSymbols[static_cast<int>(op)];
}

double Value::as_float() const {
  switch (kind_) {
    case Kind::Bool: return b_ ? 1.0 : 0.0;
    case Kind::Int: return static_cast<double>(i_);
    case Kind::Float: return f_;
    default: return 0.0;
  }
}

std::string Value::type_name() const {
  switch (kind_) {
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Object: return obj_->type_name();
  }
  return "object";
}

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // "-1.2345e-05" (shortest round-trip digits)
  size_t e = sci.find('e');
  int exponent = std::stoi(sci.substr(e + 1));
  bool negative = sci[0] == '-';
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i)
    if (sci[i] != '.') digits += sci[i];
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {  // Python switches to exponent notation here
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out;
  }
  if (exponent < 0) return out + "0." + std::string(-exponent - 1, '0') + digits;
  size_t int_len = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= int_len) return out + digits + std::string(int_len - digits.size(), '0') + ".0";
  return out + digits.substr(0, int_len) + "." + digits.substr(int_len);
}

std::string Value::repr() const {
  switch (kind_) {
    case Kind::None: return "None";
    case Kind::Bool: return b_ ? "True" : "False";
    case Kind::Int: return std::to_string(i_);
    case Kind::Float: return float_repr(f_);
    case Kind::Object: return obj_->repr();
  }
  return "?";
}

std::string Value::str() const {
  if (auto* s = as<StrObj>()) return s->s;
  if (kind_ == Kind::Object) return obj_->str();
  return repr();
}

bool Value::truthy() const {
  switch (kind_) {
    case Kind::None: return false;
    case Kind::Bool: return b_;
    case Kind::Int: return i_ != 0;
    case Kind::Float: return f_ != 0.0;
    case Kind::Object: return obj_->truthy();
  }
  return false;
}

// ---- argument binding -------------------------------------------------------------------------

// Hot: every builtin reads its parameters by name. Most candidates differ in length, which is
// checked before the characters.
static bool same_name(const std::string& param, std::string_view name) {
  if (param.size() != name.size()) return false;
  // A byte loop: names are short, and a memcmp call costs more than comparing them.
  for (size_t k = 0; k < name.size(); ++k)
    if (param[k] != name[k]) return false;
  return true;
}

const Value& BoundArgs::operator[](std::string_view name) const {
  const auto& params = sig->params;
  for (size_t i = 0; i < params.size(); ++i)
    if (same_name(params[i].name, name)) return values[i];
  throw NkiError(ErrorKind::Internal, fmt::format("{}() has no parameter '{}'", sig->name, name));
}

bool BoundArgs::was_given(std::string_view name) const {
  for (size_t i = 0; i < sig->params.size(); ++i)
    if (sig->params[i].name == name) return given[i];
  return false;
}

namespace {

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += names.size() == 2 ? " and " : (i + 1 == names.size() ? ", and " : ", ");
    out += "'" + names[i] + "'";
  }
  return out;
}

void report_missing(const Signature& sig, const BoundArgs& bound, bool keyword_only) {
  std::vector<std::string> missing;
  for (size_t i = 0; i < sig.params.size(); ++i)
    if (!bound.given[i] && !sig.params[i].default_value && sig.params[i].keyword_only == keyword_only)
      missing.push_back(sig.params[i].name);
  if (missing.empty()) return;
  throw NkiError(ErrorKind::Type,
                 fmt::format("{}() missing {} required {} argument{}: {}", sig.name, missing.size(),
                             keyword_only ? "keyword-only" : "positional", missing.size() == 1 ? "" : "s",
                             quoted_list(missing)));
}

void bind_positional(const Signature& sig, const CallArgs& call, BoundArgs& bound) {
  size_t positional = 0;
  for (const Param& p : sig.params) positional += p.keyword_only ? 0 : 1;
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (i < positional) {
      bound.values[i] = call.args[i];
      bound.given[i] = true;
    } else if (sig.var_args) {
      bound.rest.push_back(call.args[i]);
    } else {
      throw NkiError(ErrorKind::Type, fmt::format("{}() takes {} positional argument{} but {} {} given", sig.name,
                                                  positional, positional == 1 ? "" : "s", call.args.size(),
                                                  call.args.size() == 1 ? "was" : "were"));
    }
  }
}

// "x, y, transpose_x, mask": what the function takes, for an unexpected keyword's message.
std::string parameter_list(const Signature& sig) {
  std::string out;
  for (const Param& p : sig.params) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

NkiError keyword_error(std::string message, const std::string& keyword) {
  NkiError e(ErrorKind::Type, std::move(message));
  e.diag.keyword = keyword;
  return e;
}

}  // namespace

BoundArgs bind_args(const Signature& sig, const CallArgs& call) {
  BoundArgs bound;
  bound.sig = &sig;
  bound.values.resize(sig.params.size());
  bound.given.assign(sig.params.size(), false);
  bind_positional(sig, call, bound);
  for (const auto& [name, value] : call.kwargs) {
    size_t idx = 0;
    while (idx < sig.params.size() && sig.params[idx].name != name) ++idx;
    if (idx == sig.params.size()) {
      if (!sig.var_kwargs) throw unknown_keyword(sig.name, name, parameter_list(sig));
      bound.extra_kwargs.emplace_back(name, value);
      continue;
    }
    if (bound.given[idx])
      throw keyword_error(fmt::format("{}() got multiple values for argument '{}'", sig.name, name), name);
    bound.values[idx] = value;
    bound.given[idx] = true;
  }
  // One pass fills the defaults; the error message is built only when a required one is unbound.
  bool missing = false;
  for (size_t i = 0; i < sig.params.size(); ++i) {
    if (bound.given[i]) continue;
    if (sig.params[i].default_value) bound.values[i] = *sig.params[i].default_value;
    else missing = true;
  }
  if (missing) {
    report_missing(sig, bound, false);
    report_missing(sig, bound, true);
  }
  return bound;
}

// ---- default object protocol ------------------------------------------------------------------

std::string Object::repr() const { return fmt::format("<{} object>", type_name()); }

Value Object::get_attr(Interpreter& in, std::string_view name) {
  if (auto method = core::get_method(in, shared_from_this(), name)) return *method;
  throw NkiError(ErrorKind::Name, "AttributeError", fmt::format("'{}' object has no attribute '{}'", type_name(), name));
}

void Object::set_attr(Interpreter& in, std::string_view name, const Value& value) {
  throw NkiError(ErrorKind::Type, fmt::format("cannot set attribute '{}' of a '{}' object", name, type_name()));
}

void Object::del_item(Interpreter& in, const Value& index) { core::del_item(in, *this, index); }

Value Object::enter(Interpreter& in) {
  throw NkiError(ErrorKind::Type,
                 fmt::format("'{}' object does not support the context manager protocol (used in 'with')", type_name()));
}

Value Object::call(Interpreter& in, CallArgs& args) {
  throw NkiError(ErrorKind::Type, fmt::format("'{}' object is not callable", type_name()));
}

Value Object::get_item(Interpreter& in, const Value& index) { return core::get_item(in, *this, index); }

void Object::set_item(Interpreter& in, const Value& index, const Value& value) {
  core::set_item(in, *this, index, value);
}

std::unique_ptr<Iterator> Object::iter(Interpreter& in) { return core::iter(in, *this); }

bool Object::contains(Interpreter& in, const Value& v) { return core::contains(in, *this, v); }

// ---- core object types ------------------------------------------------------------------------

std::string StrObj::repr() const {
  char quote = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c == quote) {
          out += '\\';
          out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + quote;
}

bool StrObj::equals(const Object& o) const { return o.type() == ObjType::Str && static_cast<const StrObj&>(o).s == s; }

namespace {
std::string join_reprs(const std::vector<Value>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].repr();
  return out;
}
}  // namespace

MemoryCharge::~MemoryCharge() {
  if (charged_ == 0) return;
  if (auto* budget = tensor::AllocationBudget::current()) budget->credit(charged_);
}

void MemoryCharge::set(uint64_t bytes) {
  auto* budget = tensor::AllocationBudget::current();
  if (!budget || bytes == charged_) return;  // outside any run nothing is limited
  if (bytes > charged_) budget->charge(bytes - charged_);
  else budget->credit(charged_ - bytes);
  charged_ = bytes;
}

TupleObj::~TupleObj() { release_values(items); }
ListObj::~ListObj() { release_values(items); }
DictObj::~DictObj() { release_pairs(items); }

std::string TupleObj::repr() const {
  NestingGuard depth("while getting the repr of an object");
  return "(" + join_reprs(items) + (items.size() == 1 ? ",)" : ")");
}

bool TupleObj::equals(const Object& o) const {
  if (o.type() != ObjType::Tuple) return false;
  NestingGuard depth("in comparison");
  const auto& other = static_cast<const TupleObj&>(o).items;
  if (other.size() != items.size()) return false;
  for (size_t i = 0; i < items.size(); ++i)
    if (!values_equal(items[i], other[i])) return false;
  return true;
}

size_t TupleObj::hash() const {
  NestingGuard depth("while hashing");
  size_t h = 0x345678;
  for (const Value& v : items) h = h * 1000003 ^ core::hash_value(v);
  return h;
}

std::string ListObj::repr() const {
  ReprGuard guard(this);
  if (!guard.active()) return "[...]";  // a list that contains itself, as Python prints it
  return "[" + join_reprs(items) + "]";
}

std::string DictObj::repr() const {
  ReprGuard guard(this);
  if (!guard.active()) return "{...}";
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + items[i].first.repr() + ": " + items[i].second.repr();
  return out + "}";
}

size_t DictObj::position(const Value& key) {
  return index.find(key, items.size(), [this](size_t p) -> const Value& { return items[p].first; });
}

Value* DictObj::find(const Value& key) {
  size_t i = position(key);
  return i == KeyIndex::npos ? nullptr : &items[i].second;
}

void DictObj::erase(size_t position) {
  items.erase(items.begin() + long(position));
  index.invalidate();
}

std::string SliceObj::repr() const {
  return fmt::format("slice({}, {}, {})", start.repr(), stop.repr(), step.repr());
}

const ObjectPtr& EllipsisObj::instance() {
  static const ObjectPtr kInstance = std::make_shared<EllipsisObj>();
  return kInstance;
}

namespace {
struct SignedBuiltin : BuiltinObj {
  Signature sig;
  SignedBuiltin(Signature s, std::function<Value(Interpreter&, BoundArgs&)> f)
      : BuiltinObj(s.name, nullptr), sig(std::move(s)) {
    fn = [this, f = std::move(f)](Interpreter& in, CallArgs& args) {
      BoundArgs bound = bind_args(sig, args);
      return f(in, bound);
    };
  }
  const Signature* signature() const override { return &sig; }
};
}  // namespace

ObjectPtr make_builtin(Signature sig, std::function<Value(Interpreter&, BoundArgs&)> fn) {
  return std::make_shared<SignedBuiltin>(std::move(sig), std::move(fn));
}

Value ModuleObj::get_attr(Interpreter& in, std::string_view attr) {
  auto it = attrs.find(attr);
  if (it != attrs.end()) return it->second;
  throw NkiError(ErrorKind::Name, "AttributeError", fmt::format("module '{}' has no attribute '{}'", name, attr));
}

// ---- helpers ------------------------------------------------------------------------------------

Value make_str(std::string s) { return Value(std::make_shared<StrObj>(std::move(s))); }
Value make_tuple(std::vector<Value> items) { return Value(std::make_shared<TupleObj>(std::move(items))); }
Value make_list(std::vector<Value> items) { return Value(std::make_shared<ListObj>(std::move(items))); }

namespace {
ScalarConverter g_scalar_converter = nullptr;
}

void register_scalar_converter(ScalarConverter fn) { g_scalar_converter = fn; }

std::optional<Value> to_python_scalar(const Value& v) {
  if (v.is_number()) return v;
  if (auto* inst = v.is_object() ? dynamic_cast<InstanceObj*>(v.object().get()) : nullptr)
    return inst->scalar_value;  // IntEnum members
  if (v.is_object() && g_scalar_converter) return g_scalar_converter(v);
  return std::nullopt;
}

int64_t to_int(const Value& v, std::string_view what) {
  if (v.is_int() || v.is_bool()) return v.as_int();
  if (auto scalar = to_python_scalar(v); scalar && (scalar->is_int() || scalar->is_bool())) return scalar->as_int();
  throw NkiError(ErrorKind::Type, fmt::format("{} must be an integer, not '{}'", what, v.type_name()));
}

double to_float(const Value& v, std::string_view what) {
  if (v.is_number()) return v.as_float();
  if (auto scalar = to_python_scalar(v)) return scalar->as_float();
  throw NkiError(ErrorKind::Type, fmt::format("{} must be a number, not '{}'", what, v.type_name()));
}

std::vector<int64_t> to_int_list(const Value& v, std::string_view what) {
  const std::vector<Value>* items = nullptr;
  if (auto* t = v.as<TupleObj>()) items = &t->items;
  if (auto* l = v.as<ListObj>()) items = &l->items;
  if (!items) return {to_int(v, what)};
  std::vector<int64_t> out;
  out.reserve(items->size());
  for (const Value& item : *items) out.push_back(to_int(item, what));
  return out;
}

bool DictObj::equals(const Object& other) const {
  auto* d = dynamic_cast<const DictObj*>(&other);
  if (!d || d->items.size() != items.size()) return false;
  for (const auto& [k, v] : items) {
    bool found = false;
    for (const auto& [k2, v2] : d->items)
      if (values_equal(k, k2)) {
        found = values_equal(v, v2);
        break;
      }
    if (!found) return false;
  }
  return true;
}

bool values_equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.as_float() == b.as_float();
    return a.as_int() == b.as_int();
  }
  if (a.is_none() || b.is_none()) return a.is_none() && b.is_none();
  if (!a.is_object() || !b.is_object()) return false;
  if (a.object() == b.object()) return true;
  NestingGuard depth("in comparison");
  auto* la = a.as<ListObj>();
  auto* lb = b.as<ListObj>();
  if (la && lb) {
    if (la->items.size() != lb->items.size()) return false;
    for (size_t i = 0; i < la->items.size(); ++i)
      if (!values_equal(la->items[i], lb->items[i])) return false;
    return true;
  }
  return a.object()->equals(*b.object());
}

}  // namespace nki
