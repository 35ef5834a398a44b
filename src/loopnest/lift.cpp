// The lifter's setup and driver (lift.h, lifter.h): the kernel's arguments bound, the module's names
// read (a factory's too), the nodes it makes, the walk of the kernel's body (lift_stmt.cpp) and what
// is judged once it is done (an adopted launch, scratch outputs, random-number loops); lift() and
// lift_source() for a module or a file's text.
#include <algorithm>
#include <functional>
#include <map>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/analysis.h"
#include "loopnest/forwarding_decorator.h"
#include "loopnest/lifter.h"
#include "loopnest/transform.h"
#include "nki/lib/kernel_choice.h"
#include "nki/parser.h"

namespace loopnest {

LiftError::LiftError(nki::Diagnostic d) : std::runtime_error(d.message), diag(std::move(d)) {}

std::string LiftError::render() const { return nki::render(diag); }

namespace detail {

using namespace nki;
using K = AValue::K;

namespace {

// A scalar or tuple argument as the Python value the kernel sees.
AValue scalar_value(const ArgSpec& a) {
  if (a.is_tuple) {
    std::vector<AValue> items;
    for (const auto& x : a.items) items.push_back(scalar_value(x));
    return AValue::of_tuple(std::move(items));
  }
  if (a.is_array) return AValue::of_kind(K::Unknown);
  return a.scalar == static_cast<double>(static_cast<int64_t>(a.scalar)) && a.dtype == "int"
             ? AValue::of_int(static_cast<int64_t>(a.scalar))
             : AValue::of_float(a.scalar);
}

}  // namespace

Lifter::Lifter(std::shared_ptr<const ModuleAst> m, const std::vector<ArgSpec>& args, const FunctionCode& kernel,
               int nc_version, const std::string& bound_as)
    : module(std::move(m)) {
  k.module = module;
  k.nc_version = nc_version;
  fn = &kernel;
  k.function = fn;
  k.name = fn->name;
  // Module level: imports, constants and helper functions the kernel may use.
  for (const auto& s : module->body) {
    if (s->kind == StmtKind::FunctionDef) {
      auto& def = static_cast<const FunctionDefStmt&>(*s);
      if (def.code.get() != fn) {
        helpers[def.code->name] = def.code.get();
        env[def.code->name] = AValue::of_kind(K::Func, "user." + def.code->name);
      }
      continue;
    }
    if (s->kind == StmtKind::ClassDef) {
      declare_class(static_cast<const ClassDefStmt&>(*s));
      continue;
    }
    if (s->kind == StmtKind::Import || s->kind == StmtKind::ImportFrom) {
      import(static_cast<const ImportStmt&>(*s));
    } else if (s->kind == StmtKind::Assign) {
      auto& a = static_cast<const AssignStmt&>(*s);
      // `ROWS = 128`, `ROWS, COLS = 128, 512`, `P = Q = 128`: each name a constant.
      bool names_only = true;
      for (const auto& t : a.targets) {
        bool sequence = t->kind == ExprKind::Tuple || t->kind == ExprKind::List;
        if (t->kind != ExprKind::Name && !sequence) names_only = false;
        if (sequence)
          for (const auto& e : static_cast<const SequenceExpr&>(*t).elts) names_only = names_only && e->kind == ExprKind::Name;
      }
      if (!names_only) continue;
      // A helper the value calls (a kernel factory) sees the module's imports and helpers so far.
      for (const auto& [name, value] : env) globals[name] = value;
      try {
        std::vector<Op> ignored;
        current_ops = &ignored;
        AValue v = eval(*a.value);
        if (!ignored.empty()) continue;
        // Bound in a scope of their own (the module's imports and helpers stay in env).
        std::map<std::string, AValue> module_env;
        module_env.swap(env);
        try {
          for (const auto& t : a.targets) bind_target(*t, v);
        } catch (const LiftError&) {
          env.swap(module_env);
          throw;
        }
        env.swap(module_env);
        for (auto& [name, value] : module_env) globals[name] = value;
      } catch (const LiftError& e) {
        // Not a constant the kernel can use: it stays module code (why, for a kernel a factory
        // makes there: factory_scope).
        for (const auto& t : a.targets)
          if (t->kind == ExprKind::Name) module_refusals.insert_or_assign(static_cast<const NameExpr&>(*t).id, e.diag);
      }
    }
  }
  globals.insert(env.begin(), env.end());
  env.clear();
  launches.clear();  // the module's calls of helpers (a factory) are no launches of the kernel
  bool top_level = false;
  for (const auto& s : module->body)
    top_level = top_level || (s->kind == StmtKind::FunctionDef && static_cast<const FunctionDefStmt&>(*s).code.get() == fn);
  if (!top_level) factory_scope(bound_as);
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const Parameter& p = fn->params[i];
    Param param;
    param.name = p.name;
    // The kernel is called with its arguments by position: *args takes what is left (nothing
    // here, the arguments being the task's), a keyword-only parameter its default.
    if (p.kind == ParamKind::VarArgs && i >= args.size()) {
      env[p.name] = AValue::of_tuple({});
      k.params.push_back(param);
      continue;
    }
    if (p.kind == ParamKind::VarArgs) {
      // The arguments left are the tuple's items, each named as its subscript (`inputs[1]`), which
      // is how the text reaches it.
      std::vector<AValue> items;
      for (size_t j = i; j < args.size(); ++j) items.push_back(bind_argument(args[j], fmt::format("{}[{}]", p.name, j - i)));
      env[p.name] = AValue::of_tuple(std::move(items));
      continue;
    }
    if (p.kind == ParamKind::VarKwargs) {
      // The kernel is called with its arguments by position (as run_kernel does): no keyword reaches it.
      env[p.name] = AValue::of_kind(K::Dict);
      continue;
    }
    if (p.kind == ParamKind::KeywordOnly && !p.default_value)
      fail(p.span, fmt::format("the keyword-only kernel parameter '{}' without a default (the kernel is called "
                               "with its arguments by position)", p.name));
    if (i >= args.size() || p.kind == ParamKind::KeywordOnly) {
      if (p.default_value) {
        std::vector<Op> ignored;
        current_ops = &ignored;
        env[p.name] = eval(*p.default_value);
        k.params.push_back(param);
        continue;
      }
      fail(p.span, fmt::format("the kernel argument '{}' (its shape is not known: give the task's reference)", p.name));
    }
    env[p.name] = bind_argument(args[i], p.name);
  }
}

// A kernel made by a factory (`def make_kernel(tile=512): @nki.jit def k(x): ...; return k`, bound
// at the top level by `kernel = make_kernel()`): the module-level evaluation of that call (the
// constructor's pass over the module) ran the factory and returned the def with the factory's
// names (Python's closure: its arguments and locals as they are when it returns). The kernel's
// body sees them as constants of the trace, as the interpreter's run does.
void Lifter::factory_scope(const std::string& bound_as) {
  auto it = globals.find(bound_as);
  bool made = it != globals.end() && it->second.k == K::Func && it->second.attrs &&
              it->second.s == "user." + fn->name && helpers.count(fn->name) && helpers.at(fn->name) == fn;
  // The factory's call failing to lift is why: its error points at the construct.
  if (!made && module_refusals.count(bound_as)) throw LiftError(module_refusals.at(bound_as));
  if (!made)
    fail(fn->span, fmt::format("the kernel '{}' defined inside a function: the module's '{}' is not "
                               "bound at its top level to a call of that function returning it",
                               fn->name, bound_as.empty() ? fn->name : bound_as));
  env = *it->second.attrs;
  // The kernel's own name in there is the factory's local (a plain function value): not a helper
  // the body may inline.
  env.erase(fn->name);
}

AValue Lifter::bind_argument(const ArgSpec& a, const std::string& name) {
  Param param;
  param.name = name;
  if (a.is_tuple) {
    param.passed = a;
    k.params.push_back(param);
    return scalar_value(a);
  }
  if (!a.is_array) {
    param.scalar = a.scalar;
    param.passed = a;
    k.params.push_back(param);
    return scalar_value(a);
  }
  Tensor t;
  t.name = name;
  t.role = TensorRole::Argument;
  t.memory = Memory::Hbm;
  t.partition_dim = -1;
  t.dtype = a.dtype;
  for (int64_t d : a.shape) t.shape.push_back(IExpr(d));
  param.tensor = new_tensor(std::move(t));
  k.params.push_back(param);
  return AValue::of_tile(whole(param.tensor));
}

int Lifter::new_tensor(Tensor t) { return add_tensor(k, std::move(t)); }

Node Lifter::new_node(NodeKind kind, const Stmt& origin) {
  Node n;
  n.kind = kind;
  n.id = k.next_node++;
  n.origin = &origin;
  return n;
}

Loop Lifter::new_loop(Loop loop) { return k.loops.at(add_loop(k, std::move(loop))); }

void Lifter::push_meta(const Stmt& s, MetaKind meta, std::vector<Node>& out) {
  Node n = new_node(NodeKind::Meta, s);
  n.meta = meta;
  out.push_back(std::move(n));
}

Node Lifter::ops_node(const Stmt& s, std::vector<Op> ops) {
  Node n = new_node(NodeKind::Stmt, s);
  n.ops = std::move(ops);
  // The random-number generator's state is an ordered effect: each draw's values depend on every
  // seed and draw before it, which no dependence on tiles shows. A statement seeding or drawing
  // stays as written, where it is (frozen: no move changes it, and the moves that reorder, fuse,
  // split or coarsen loops refuse a loop holding a frozen statement), and the loops around it
  // carry the state from one iteration to the next (sequential_random_loops). A gather's rows are
  // data (loopnest::gathers): frozen the same way, no move has a rule for them.
  for (const auto& op : n.ops) n.frozen = n.frozen || is_random(op.api) || indirect_dma(op);
  // `scores = [... for j in range(n)]` lifted as its loop (lift_rolled.cpp): the statement is that loop.
  if (pending_inline.size() == 1 && pending_inline.front().name == kComprehensionLoop && n.ops.empty() &&
      pending_inline.front().nodes.size() == 1) {
    Node loop = std::move(pending_inline.front().nodes.front());
    pending_inline.clear();
    return loop;
  }
  if (!pending_inline.empty()) {
    n.kind = NodeKind::Inline;
    n.inline_split = pending_inline.front().ops_before;
    for (auto& p : pending_inline) {
      n.helper += (n.helper.empty() ? "" : ",") + p.name;
      for (auto& x : p.nodes) n.body.push_back(std::move(x));
    }
    pending_inline.clear();
    freeze(n);  // printed only as the call: its operations too
  }
  return n;
}

// A wrapper whose only tile work is one SPMD launch (`return gated_relu[grid](x, y)`, with host
// code around it: the grid from the shapes, a numpy output it passes in) or one plain call of the
// kernel (`return leaky_cap(x, slope=0.2)`): the form is the launched function's body, its program
// ids the loops of Kernel::grid, so every move sees its nest (the wrapper lifted, the launch was one
// helper node printed as the call, and no move could touch it). A wrapper launching several
// kernels, or launching inside a loop, keeps that form.
void Lifter::adopt_launch() {
  if (launches.size() != 1) return;
  Launch& l = launches.front();
  // A host `if` on the shapes (`if x.shape[0] <= 128: return _small(x)`, a dispatch between two
  // kernels) is known when lifting: only its taken branch runs, so the launch may sit in it or
  // after it.
  int calls = 0;
  std::function<bool(const std::vector<Node>&)> only_the_launch = [&](const std::vector<Node>& block) {
    for (const Node& n : block) {
      if (n.kind == NodeKind::Meta) continue;
      if (n.kind == NodeKind::If && n.cond_l.is_constant() && n.cond_r.is_constant()) {
        if (!only_the_launch(holds(n.cond_l.constant(), n.cond, n.cond_r.constant()) ? n.body : n.orelse)) return false;
        continue;
      }
      if (n.kind != NodeKind::Inline || n.helper != l.code->name || !n.ops.empty()) return false;
      ++calls;
    }
    return true;
  };
  if (!only_the_launch(k.body) || calls != 1) return;
  k.body = std::move(l.body);
  k.grid = l.grid;
  k.function = fn = l.code;
  k.name = l.code->name;
  // A tensor the launch passes is the launched function's parameter there (`def kernel(a):
  // return tiles[2, 4](a)` launching `def tiles(x)`): printed from the form, it is `x`.
  for (const auto& [name, v] : l.params)
    if (v.k == K::Tile && whole_access(v.access)) k.tensor(v.access.tensor).name = name;
  // Declared in the body, a tile is the program's: one per kernel run of the launched function.
  for (auto& t : k.tensors)
    if (std::find(k.grid.begin(), k.grid.end(), t.scope_loop) != k.grid.end()) t.scope_loop = -1;
}

// The loops around a statement that seeds or draws random numbers carry the generator's state
// from iteration to iteration: sequential in the form (printed as written while unchanged), so the
// moves that need independent iterations (interchange, jam, reorder, fusion) leave them alone.
void sequential_random_loops(Kernel& k) {
  std::function<bool(const std::vector<Node>&)> walk = [&](const std::vector<Node>& block) {
    bool any = false;
    for (const Node& n : block) {
      bool here = false;
      for (const auto& op : n.ops) here = here || is_random(op.api);
      here = walk(n.body) || here;
      here = walk(n.orelse) || here;
      if (here && n.kind == NodeKind::Loop) {
        k.loops.at(n.loop).kind = LoopKind::Sequential;
        k.loops.at(n.loop).ordered = true;
      }
      any = any || here;
    }
    return any;
  };
  walk(k.body);
}

Kernel Lifter::run() {
  block(fn->body, k.body);
  name_program_loops();
  if (adopt_launches) adopt_launch();
  // A shared HBM tensor the kernel declares and does not return is its scratch (a pass of a
  // multi-pass kernel staging a stage's result for the next, `buffer=nl.shared_hbm` as for an
  // output): what it holds is lost when the kernel ends, so it is not the kernel's result and
  // forwarding it on chip (forward_scratch) changes no output. Judged only when the kernel returns
  // something (its outputs known).
  // (A returned view returns what it views: `return out.reshape(...)`.)
  std::set<int> returned;
  for (int t : k.outputs)
    for (int x = t; x >= 0 && returned.insert(x).second; x = k.tensor(x).base) {
    }
  if (!k.outputs.empty())
    for (auto& t : k.tensors)
      if (t.role == TensorRole::Output && !returned.count(t.id)) t.role = TensorRole::Scratch;
  finish_lists(k.body);
  sequential_random_loops(k);
  k.dialect.grid_indexing = grid_statements > slice_statements;
  k.dialect.block_buffers = block_writes > name_writes;
  if (!fn->body.empty()) {
    uint32_t col = fn->body.front()->span.col;
    uint32_t def_col = fn->span.col;
    if (col > def_col) k.dialect.indent = std::string(col - def_col, ' ');
  }
  return std::move(k);
}

}  // namespace detail

const nki::FunctionCode& kernel_definition(const nki::ModuleAst& module, const std::string& entry) {
  const nki::SourceFile& file = *module.file;
  nki::lib::KernelChoice choice = nki::lib::choose_kernel(file.path, file.text, entry);
  if (choice.load_error) throw LiftError(*choice.load_error);
  if (const nki::FunctionCode* def = nki::lib::chosen_definition(module, choice)) return *def;
  // A kernel a factory made and the module bound (`kernel = make_kernel(tile=512)`).
  if (const nki::FunctionCode* def = nki::lib::nested_definition(module, choice)) {
    // The wrapper of a user decorator forwarding to the module's def: that def is the kernel.
    if (const nki::FunctionCode* own = forwarded_definition(module, *def, choice.attribute)) return *own;
    return *def;
  }
  nki::Diagnostic d;
  d.kind = choice.ok() ? nki::ErrorKind::Unsupported : nki::ErrorKind::Name;
  d.loc.file = module.file;  // the file, no line: the choice is the file's
  d.message = choice.ok() ? fmt::format("cannot lift: the function to run, '{}', is not a def of the file",
                                        choice.function)
                          : choice.message();
  throw LiftError(std::move(d));
}

Kernel lift(std::shared_ptr<const nki::ModuleAst> module, const std::vector<ArgSpec>& args, const std::string& entry,
            int nc_version, Launch launch) {
  const nki::FunctionCode& def = kernel_definition(*module, entry);
  std::string bound_as = nki::lib::choose_kernel(module->file->path, module->file->text, entry).attribute;
  detail::Lifter l(std::move(module), args, def, nc_version, bound_as);
  l.adopt_launches = launch == Launch::Adopted;
  Kernel k = l.run();
  k.entry = entry;
  note_written(k);
  return k;
}

Kernel lift_source(const std::string& path, const std::string& text, const std::vector<ArgSpec>& args,
                   const std::string& entry, int nc_version, Launch launch) {
  auto src = std::make_shared<nki::SourceFile>(nki::SourceFile{path, text});
  std::shared_ptr<nki::ModuleAst> module;
  try {
    module = nki::parse_module(src);
  } catch (const nki::NkiError& e) {
    throw LiftError(e.diag);
  }
  return lift(module, args, entry, nc_version, launch);
}
}  // namespace loopnest
