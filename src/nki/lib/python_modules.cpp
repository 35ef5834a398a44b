// The small standard-library modules kernel files import next to numpy and nki: `typing`
// (annotations only), `functools` (reduce, partial, cache decorators) and `itertools` (product,
// chain); and ml_dtypes' bfloat16 / float8 types for references. Nothing here reaches files, processes or the network.
#include <fmt/core.h>

#include "nki/core_types.h"
#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/module_util.h"
#include "nki/lib/modules.h"

namespace nki::lib {

namespace {

std::vector<Value> items_of(Interpreter& in, const Value& iterable) {
  std::vector<Value> out;
  auto it = in.iterate(iterable);
  for (Value v; it->next(v);) {
    in.charge_steps(1);
    out.push_back(std::move(v));
  }
  return out;
}

// functools.partial(fn, *args, **kwargs)
struct PartialObj : Object {
  Value fn;
  CallArgs bound;
  std::string type_name() const override { return "functools.partial"; }
  Value call(Interpreter& in, CallArgs& args) override {
    CallArgs call = bound;
    for (auto& a : args.args) call.args.push_back(a);
    for (auto& kw : args.kwargs) {
      bool replaced = false;
      for (auto& old : call.kwargs)
        if (old.first == kw.first) old.second = kw.second, replaced = true;
      if (!replaced) call.kwargs.push_back(kw);
    }
    return in.call(fn, std::move(call));
  }
};

void add(ModuleObj& m, const std::string& prefix, const char* name, NativeFn fn) {
  m.attrs[name] = Value(std::make_shared<BuiltinObj>(prefix + "." + name, std::move(fn)));
}

}  // namespace

ObjectPtr make_typing_stdlib_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("typing");
  for (const char* name : {"Any", "Optional", "Union", "Tuple", "List", "Dict", "Set", "Sequence", "Iterable",
                           "Iterator", "Callable", "Type", "Mapping", "Literal", "Final", "ClassVar"})
    m->attrs[name] = Value(std::make_shared<AnnotationObj>(std::string("typing.") + name));
  m->attrs["NamedTuple"] = make_typing_named_tuple();
  m->attrs["TYPE_CHECKING"] = Value::from_bool(false);
  add(*m, "typing", "TypeVar", [](Interpreter&, CallArgs& a) {
    return Value(std::make_shared<AnnotationObj>(a.args.empty() ? "typing.TypeVar" : a.args[0].str()));
  });
  add(*m, "typing", "cast", [](Interpreter&, CallArgs& a) {
    if (a.args.size() != 2) throw NkiError(ErrorKind::Type, "cast() takes 2 arguments");
    return a.args[1];
  });
  return m;
}

ObjectPtr make_functools_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("functools");
  add(*m, "functools", "reduce", [](Interpreter& in2, CallArgs& a) {
    if (a.args.size() < 2 || a.args.size() > 3 || !a.kwargs.empty())
      throw NkiError(ErrorKind::Type, "reduce() takes 2 or 3 positional arguments");
    std::vector<Value> items = items_of(in2, a.args[1]);
    size_t i = 0;
    Value acc;
    if (a.args.size() == 3) {
      acc = a.args[2];
    } else {
      if (items.empty()) throw NkiError(ErrorKind::Type, "reduce() of empty iterable with no initial value");
      acc = items[i++];
    }
    for (; i < items.size(); ++i) acc = in2.call(a.args[0], CallArgs{{acc, items[i]}, {}});
    return acc;
  });
  add(*m, "functools", "partial", [](Interpreter&, CallArgs& a) {
    if (a.args.empty()) throw NkiError(ErrorKind::Type, "partial() needs a callable");
    auto p = std::make_shared<PartialObj>();
    p->fn = a.args[0];
    p->bound.args.assign(a.args.begin() + 1, a.args.end());
    p->bound.kwargs = a.kwargs;
    return Value(p);
  });
  // Caching decorators change nothing a kernel can observe: the function itself.
  for (const char* name : {"lru_cache", "cache"})
    m->attrs[name] = Value(std::make_shared<PassthroughObj>(std::string("functools.") + name));
  // functools.wraps(wrapped) is always a decorator factory: the decorator it returns gives back the
  // wrapper it decorates (not `wrapped`, which a passthrough called with one function would return).
  add(*m, "functools", "wraps", [](Interpreter&, CallArgs&) {
    return Value(std::make_shared<PassthroughObj>("functools.wraps"));
  });
  return m;
}

// ml_dtypes (the numpy extension types references use for bfloat16 / fp8 inputs).
ObjectPtr make_ml_dtypes_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("ml_dtypes");
  m->attrs["bfloat16"] = make_dtype(tensor::DType::BFloat16);
  m->attrs["float8_e4m3"] = make_dtype(tensor::DType::Float8E4M3);  // IEEE-style, largest finite 240
  m->attrs["float8_e5m2"] = make_dtype(tensor::DType::Float8E5M2);
  m->attrs["float8_e4m3fn"] = make_dtype(tensor::DType::Float8E4M3FN);  // OCP, largest finite 448
  return m;
}

// `from __future__ import annotations` and the other feature names (all mandatory in 3.10 but
// annotations): the statement itself does nothing at run time.
ObjectPtr make_future_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("__future__");
  for (const char* name : {"annotations", "division", "absolute_import", "print_function", "generator_stop",
                           "with_statement", "nested_scopes", "unicode_literals"})
    m->attrs[name] = make_str(std::string("__future__.") + name);
  return m;
}

ObjectPtr make_itertools_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("itertools");
  add(*m, "itertools", "product", [](Interpreter& in2, CallArgs& a) {
    int64_t repeat = 1;
    for (auto& [k, v] : a.kwargs) {
      if (k != "repeat") throw unknown_keyword("itertools.product", k, "repeat");
      repeat = to_int(v, "product() repeat");
    }
    std::vector<std::vector<Value>> pools;
    for (int64_t r = 0; r < repeat; ++r)
      for (auto& it : a.args) pools.push_back(items_of(in2, it));
    std::vector<std::vector<Value>> result(1);
    for (auto& pool : pools) {
      std::vector<std::vector<Value>> next;
      for (auto& prefix : result)
        for (auto& v : pool) {
          in2.charge_steps(1);
          next.push_back(prefix);
          next.back().push_back(v);
        }
      result = std::move(next);
    }
    std::vector<Value> tuples;
    for (auto& r : result) tuples.push_back(make_tuple(std::move(r)));
    return Value(std::make_shared<IteratorObj>("itertools.product", std::make_unique<VectorIterator>(std::move(tuples))));
  });
  add(*m, "itertools", "chain", [](Interpreter& in2, CallArgs& a) {
    std::vector<Value> all;
    for (auto& it : a.args)
      for (auto& v : items_of(in2, it)) all.push_back(std::move(v));
    return Value(std::make_shared<IteratorObj>("itertools.chain", std::make_unique<VectorIterator>(std::move(all))));
  });
  return m;
}

}  // namespace nki::lib
