// Classes of the kernel's module, as application code uses them around the tile work: a config
// object (a @dataclass with defaults and `field(default=...)`, a `typing.NamedTuple` class and its
// `_replace`), enum members (IntEnum class
// attributes), a helper class whose __init__, methods and properties (with setters that validate)
// run when the kernel calls them. An instance is a set of attributes shared by every reference to
// it; methods are helpers inlined with `self` bound, like module-level helper functions.
#include <fmt/format.h>

#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// Whether the class derives from `typing.NamedTuple` (`class Tiles(NamedTuple):`): fields and
// construction as a dataclass's, plus `_replace`.
bool is_named_tuple(const ClassDefStmt& def) {
  for (const auto& b : def.bases) {
    if (b->kind == ExprKind::Name && static_cast<const NameExpr&>(*b).id == "NamedTuple") return true;
    if (b->kind == ExprKind::Attribute && static_cast<const AttributeExpr&>(*b).attr == "NamedTuple") return true;
  }
  return false;
}

// The last name of a decorator (`dataclass`, `dataclasses.dataclass(frozen=True)` -> "dataclass").
std::string decorator_name(const Expr& d) {
  const Expr* e = &d;
  if (e->kind == ExprKind::Call) e = static_cast<const CallExpr&>(*e).func.get();
  if (e->kind == ExprKind::Name) return static_cast<const NameExpr&>(*e).id;
  if (e->kind == ExprKind::Attribute) return static_cast<const AttributeExpr&>(*e).attr;
  return "";
}

}  // namespace

void Lifter::declare_class(const ClassDefStmt& def) {
  const std::string& name = def.code->name;
  ClassInfo info;
  info.def = &def;
  info.dataclass = is_named_tuple(def);
  for (const auto& d : def.decorators) info.dataclass = info.dataclass || decorator_name(*d) == "dataclass";
  for (const auto& s : def.code->body) {
    if (s->kind == StmtKind::FunctionDef) {
      auto& f = static_cast<const FunctionDefStmt&>(*s);
      std::string key = name + "." + f.code->name;
      for (const auto& d : f.decorators) {
        std::string dn = decorator_name(*d);
        if (dn == "property") info.properties.insert(f.code->name);
        if (dn == "setter") key += ".setter";
      }
      helpers[key] = f.code.get();
    } else if (s->kind == StmtKind::Assign) {
      auto& a = static_cast<const AssignStmt&>(*s);
      if (a.targets.size() != 1 || a.targets[0]->kind != ExprKind::Name) continue;
      const std::string& id = static_cast<const NameExpr&>(*a.targets[0]).id;
      info.attrs[id] = a.value.get();
      if (info.dataclass && a.annotation) info.fields.push_back({id, a.value.get()});
    } else if (s->kind == StmtKind::AnnAssign && info.dataclass) {
      auto& a = static_cast<const AnnAssignStmt&>(*s);
      if (a.target->kind == ExprKind::Name) info.fields.push_back({static_cast<const NameExpr&>(*a.target).id, nullptr});
    }
  }
  classes[name] = std::move(info);
  env[name] = AValue::of_kind(K::Class, name);
}

AValue Lifter::class_attr(const std::string& cls, const std::string& name, const Expr& at) {
  const ClassInfo& info = classes.at(cls);
  if (auto it = info.attrs.find(name); it != info.attrs.end()) {
    // A class attribute: its value in the module's scope (enum members are their integers).
    auto saved = env;
    auto* saved_ops = current_ops;
    std::vector<Op> ignored;
    current_ops = &ignored;
    env = {};
    AValue v = eval(*it->second);
    env = saved;
    current_ops = saved_ops;
    if (!ignored.empty()) fail(at.span, fmt::format("the class attribute '{}' computed by tile operations", print_expr(at)));
    return v;
  }
  if (helpers.count(cls + "." + name)) return AValue::of_kind(K::Func, "user." + cls + "." + name);  // a staticmethod
  fail(at.span, fmt::format("the attribute '{}' (class '{}' has no attribute '{}')", print_expr(at), cls, name));
}

AValue Lifter::instance_attr(const AValue& obj, const std::string& name, const Expr& at) {
  if (auto it = obj.attrs->find(name); it != obj.attrs->end()) return it->second;
  const ClassInfo& info = classes.at(obj.s);
  if (info.properties.count(name)) {
    // The getter runs as a method without arguments.
    CallExpr synthetic(at.span);  // its span locates inline_call's messages
    return inline_call(*helpers.at(obj.s + "." + name), {obj}, {}, synthetic);
  }
  if (helpers.count(obj.s + "." + name) || (name == "_replace" && is_named_tuple(*info.def))) {
    AValue m = AValue::of_kind(K::Method, name);
    m.self = std::make_shared<AValue>(obj);
    return m;
  }
  return class_attr(obj.s, name, at);
}

void Lifter::set_instance_attr(const AValue& obj, const std::string& name, const AValue& v, const Expr& at) {
  auto setter = helpers.find(obj.s + "." + name + ".setter");
  if (setter != helpers.end()) {
    CallExpr synthetic(at.span);  // its span locates inline_call's messages
    inline_call(*setter->second, {obj, v}, {}, synthetic);
    return;
  }
  (*obj.attrs)[name] = v;
}

AValue Lifter::call_method(const AValue& obj, const std::string& name, std::vector<AValue> pos,
                           std::vector<std::pair<std::string, AValue>> kw, const CallExpr& c) {
  if (name == "_replace" && !helpers.count(obj.s + "." + name)) {
    // A named tuple's copy with the fields given by keyword replaced.
    const ClassInfo& info = classes.at(obj.s);
    if (!pos.empty()) fail(c.span, fmt::format("'{}': _replace takes keyword arguments only", print_expr(c)));
    AValue copy = obj;
    copy.attrs = std::make_shared<std::map<std::string, AValue>>(*obj.attrs);
    for (auto& [n, v] : kw) {
      bool field = false;
      for (const auto& f : info.fields) field = field || f.first == n;
      if (!field) fail(c.span, fmt::format("'{}': '{}' is no field of '{}'", print_expr(c), n, obj.s));
      (*copy.attrs)[n] = std::move(v);
    }
    return copy;
  }
  pos.insert(pos.begin(), obj);
  return inline_call(*helpers.at(obj.s + "." + name), std::move(pos), std::move(kw), c);
}

AValue Lifter::construct(const AValue& cls, std::vector<AValue> pos, std::vector<std::pair<std::string, AValue>> kw,
                         const CallExpr& c) {
  const ClassInfo& info = classes.at(cls.s);
  AValue obj = AValue::of_kind(K::Instance, cls.s);
  obj.attrs = std::make_shared<std::map<std::string, AValue>>();
  if (info.dataclass) {
    // The generated __init__: fields in order, by position or keyword, else their defaults
    // (`field(default=...)` too).
    if (pos.size() > info.fields.size()) fail(c.span, fmt::format("'{}': too many arguments", print_expr(c)));
    for (size_t i = 0; i < info.fields.size(); ++i) {
      const auto& [name, def] = info.fields[i];
      const AValue* given = i < pos.size() ? &pos[i] : nullptr;
      for (const auto& [n, v] : kw)
        if (n == name) given = &v;
      if (given) {
        (*obj.attrs)[name] = *given;
        continue;
      }
      const Expr* d = def;
      if (d && d->kind == ExprKind::Call && decorator_name(*d) == "field") {
        d = nullptr;
        for (const auto& k2 : static_cast<const CallExpr&>(*def).keywords)
          if (k2.name == "default") d = k2.value.get();
      }
      if (!d) fail(c.span, fmt::format("'{}' without a value for the field '{}'", print_expr(c), name));
      auto saved = env;
      env = {};
      (*obj.attrs)[name] = eval(*d);
      env = saved;
    }
    return obj;
  }
  if (helpers.count(cls.s + ".__init__")) call_method(obj, "__init__", std::move(pos), std::move(kw), c);
  else if (!pos.empty() || !kw.empty()) fail(c.span, fmt::format("'{}': class '{}' takes no arguments", print_expr(c), cls.s));
  return obj;
}

}  // namespace loopnest::detail
