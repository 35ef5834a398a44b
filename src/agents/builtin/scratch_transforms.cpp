// Transformations that remove HBM round trips a straightforward kernel makes between its stages:
//  - forward_scratch: a private HBM scratch tensor (`nl.ndarray(..., buffer=nl.hbm)`) written
//    tile by tile by one loop nest (`nl.store(S[idx], value=v)`) and read back tile by tile with
//    the same indices by the next nest (`t = nl.load(S[idx])`): fuse the two nests level by level
//    and hand `v` to the consumer on chip. Saves the scratch's write and read traffic and lets the
//    consumer start as soon as a tile is produced instead of after the whole producer nest.
//  - hoist_load_loop: a loop that fills an SBUF buffer from HBM with loads that do not depend on
//    the enclosing loop (weights loaded per row block): move the buffer and the loop out of it.
#include <algorithm>
#include <optional>

#include "agents/builtin/transform_util.h"
#include "nki/ast_printer.h"

namespace agents::builtin {

namespace {

using namespace nki;

using Names = std::set<std::string>;

// `of_block` applied to a block holding just `s` (borrowed, not owned: released before returning).
template <class OfBlock>
Names of_statement(StmtPtr& s, OfBlock of_block) {
  Block one;
  one.push_back(StmtPtr(s.get()));
  Names out = of_block(one);
  one[0].release();
  return out;
}

// Names bound by one statement (assignment / for targets, nested ones too).
Names bound_by(StmtPtr& s) { return of_statement(s, [](Block& b) { return bound_names(b); }); }

Names stored_by(StmtPtr& s) { return of_statement(s, [](Block& b) { return subscript_stored(b); }); }

Names bound_or_stored(StmtPtr& s) {
  Names out = bound_by(s);
  out.merge(stored_by(s));
  return out;
}

// Names a statement reads from outside: everything it mentions but the targets of its own `for`
// loops (bound before every use).
Names reads_of(StmtPtr& s) {
  Names out = names_in(*s);
  Block one;
  one.push_back(StmtPtr(s.get()));
  for_each_block(one, [&](Block& blk) {
    for (auto& st : blk)
      if (st->kind == StmtKind::For) out.erase(text(*static_cast<ForStmt&>(*st).target));
  });
  one[0].release();
  return out;
}

// Targets of the `for` loops in a statement (itself included), and names bound by assignments.
Names for_targets(StmtPtr& s) {
  Names out;
  Block one;
  one.push_back(StmtPtr(s.get()));
  for_each_block(one, [&](Block& blk) {
    for (auto& st : blk)
      if (st->kind == StmtKind::For) out.merge(names_in(*static_cast<ForStmt&>(*st).target));
  });
  one[0].release();
  return out;
}

void target_names(Expr& t, Names& out) {  // `a`, `a, b`: the names; `a[i]`: none (a is not rebound)
  if (t.kind == ExprKind::Name) out.insert(static_cast<NameExpr&>(t).id);
  if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List)
    for (auto& e : static_cast<SequenceExpr&>(t).elts) target_names(*e, out);
}

Names assigned_names(StmtPtr& s) {
  Names out;
  Block one;
  one.push_back(StmtPtr(s.get()));
  for_each_block(one, [&](Block& blk) {
    for (auto& st : blk) {
      if (st->kind == StmtKind::Assign)
        for (auto& t : static_cast<AssignStmt&>(*st).targets) target_names(*t, out);
      if (st->kind == StmtKind::AugAssign) target_names(*static_cast<AugAssignStmt&>(*st).target, out);
    }
  });
  one[0].release();
  return out;
}

// True when `a` and `b` may swap order: neither writes (binds or stores through a subscript)
// anything the other reads.
bool commute(StmtPtr& a, StmtPtr& b) {
  return !intersects(bound_or_stored(a), reads_of(b)) && !intersects(bound_or_stored(b), reads_of(a));
}

// The root name of `S[...]` (or of a plain name); "" otherwise.
std::string root_name(const Expr& e) {
  const Expr* p = &e;
  while (p->kind == ExprKind::Subscript) p = static_cast<const SubscriptExpr*>(p)->value.get();
  return p->kind == ExprKind::Name ? static_cast<const NameExpr*>(p)->id : "";
}

// `nl.store(S[idx], value=v)` with `v` a name: the subscript and the value name.
struct StoreOf {
  SubscriptExpr* dst = nullptr;
  std::string value;
};
std::optional<StoreOf> scratch_store(Stmt& s, const std::string& scratch) {
  if (s.kind != StmtKind::Expr) return std::nullopt;
  auto* call = as_call(static_cast<ExprStmt&>(s).value.get(), "nl.store");
  if (!call || call->args.size() + call->keywords.size() != 2) return std::nullopt;
  ExprPtr* dst = argument(*call, "dst", 0);
  ExprPtr* value = argument(*call, "value", 1);
  if (!dst || !value || (*dst)->kind != ExprKind::Subscript || root_name(**dst) != scratch) return std::nullopt;
  if ((*value)->kind != ExprKind::Name) return std::nullopt;
  if (static_cast<SubscriptExpr&>(**dst).value->kind != ExprKind::Name) return std::nullopt;  // S[idx], one level
  return StoreOf{static_cast<SubscriptExpr*>(dst->get()), static_cast<NameExpr&>(**value).id};
}

// `t = nl.load(S[idx])` (no dtype, mask or other argument): the subscript.
SubscriptExpr* scratch_load(Stmt& s, const std::string& scratch) {
  if (assigned_name(s).empty()) return nullptr;
  auto* call = as_call(assigned_value(s), "nl.load");
  if (!call || call->args.size() != 1 || !call->keywords.empty()) return nullptr;
  if (call->args[0]->kind != ExprKind::Subscript || root_name(*call->args[0]) != scratch) return nullptr;
  auto& sub = static_cast<SubscriptExpr&>(*call->args[0]);
  return sub.value->kind == ExprKind::Name ? &sub : nullptr;
}

// A loop nest from a statement down to the one statement that mentions `id`: at each level the
// loop and the position of the child on the path in its body. Null unless every level is a
// `for` over a single name and exactly one statement of each body mentions `id`.
struct Level {
  ForStmt* loop;
  size_t child;
};
std::optional<std::vector<Level>> path_to(Stmt& top, const std::string& id) {
  std::vector<Level> levels;
  Stmt* s = &top;
  while (s->kind == StmtKind::For) {
    auto& f = static_cast<ForStmt&>(*s);
    if (f.target->kind != ExprKind::Name) return std::nullopt;
    std::optional<size_t> child;
    for (size_t k = 0; k < f.body.size(); ++k) {
      if (count_uses(*f.body[k], id) == 0) continue;
      if (child) return std::nullopt;
      child = k;
    }
    if (!child) return std::nullopt;
    levels.push_back({&f, *child});
    s = f.body[*child].get();
  }
  if (levels.empty()) return std::nullopt;
  return levels;
}

// Replaces names in `slot` (recursively) by clones of their definitions.
void expand(ExprPtr& slot, const std::map<std::string, const Expr*>& defs, int depth = 0) {
  if (!slot) return;
  if (slot->kind == ExprKind::Name && depth < 8) {
    auto it = defs.find(static_cast<NameExpr&>(*slot).id);
    if (it != defs.end()) {
      slot = clone(*it->second);
      expand(slot, defs, depth + 1);
      return;
    }
  }
  for_each_child(*slot, [&](ExprPtr& c) { expand(c, defs, depth); });
}

// Names assigned exactly once (`m = i * 4 + j`) in the bodies along a path, before the path's
// child, by a side-effect free arithmetic expression: their definitions, for comparing indices.
std::map<std::string, const Expr*> simple_defs(const std::vector<Level>& path) {
  std::map<std::string, int> count;  // assignments anywhere in the nest (the outermost body holds all)
  for_each_block(path.front().loop->body, [&](Block& blk) {
    for (auto& s : blk)
      if (!assigned_name(*s).empty()) count[assigned_name(*s)]++;
  });
  std::map<std::string, const Expr*> defs;
  for (const auto& l : path)
    for (size_t k = 0; k < l.child; ++k) {
      std::string n = assigned_name(*l.loop->body[k]);
      Expr* v = assigned_value(*l.loop->body[k]);
      if (n.empty() || count[n] != 1 || !v) continue;
      bool arithmetic = true;
      walk(*v, [&](Expr& e) {
        if (e.kind != ExprKind::Name && e.kind != ExprKind::Constant && e.kind != ExprKind::BinOp &&
            e.kind != ExprKind::UnaryOp)
          arithmetic = false;
      });
      if (arithmetic) defs[n] = v;
    }
  return defs;
}

std::string fresh_name(const std::string& base, const Names& taken) {
  for (int k = 2;; ++k) {
    std::string n = fmt::format("{}_{}", base, k);
    if (!taken.count(n)) return n;
  }
}

// Everything forward_scratch needs about one candidate; computed on the unmodified kernel.
struct ScratchPlan {
  size_t decl, producer, consumer;         // indices in the block
  std::vector<Level> pa, pb;               // paths to the store and to the load
  std::map<std::string, std::string> renames;  // consumer names -> new names
};

class ForwardScratch : public MatchingTransform {
 public:
  std::string name() const override { return "forward_scratch"; }
  std::string description() const override {
    return "fuse the loop nest that stores tiles to a private HBM scratch tensor with the nest that loads them "
           "back with the same indices, and forward each tile on chip (no HBM round trip, no wait for the whole "
           "producer nest)";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    Names all_names = names_in(kernel);
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        std::string scratch = assigned_name(*b[i]);
        if (scratch.empty() || !is_private_hbm(assigned_value(*b[i]))) continue;
        std::optional<ScratchPlan> plan;
        try {
          plan = analyse(kernel, b, i, scratch, all_names);
        } catch (const RewriteError&) {  // an expression the printer/parser cannot round-trip: no site
        }
        if (!plan) continue;
        Site site = make_site(*b[i], fmt::format("forward the tiles of HBM scratch `{}` on chip: fuse `{}` with `{}`",
                                                 scratch, brief(*b[plan->producer]), brief(*b[plan->consumer])));
        if (sink(std::move(site), [&b, scratch, p = *plan] { rewrite(b, scratch, p); })) return true;
      }
      return false;
    });
  }

 private:
  static bool is_private_hbm(Expr* v) {
    auto* call = as_call(v, "nl.ndarray");
    if (!call) return false;
    ExprPtr* buffer = argument(*call, "buffer");
    return buffer && text(**buffer) == "nl.hbm";
  }

  static std::optional<ScratchPlan> analyse(Block& kernel, Block& b, size_t decl, const std::string& scratch,
                                            const Names& all_names) {
    // Declared, stored once and loaded once: nothing else (not returned, not passed anywhere).
    if (count_uses(kernel, scratch) != 3) return std::nullopt;
    size_t a = next_use(b, decl, scratch);
    if (a == b.size()) return std::nullopt;
    size_t c = next_use(b, a, scratch);
    if (c == b.size() || count_uses(*b[a], scratch) != 1 || count_uses(*b[c], scratch) != 1) return std::nullopt;
    if (b[a]->kind != StmtKind::For || b[c]->kind != StmtKind::For) return std::nullopt;
    ScratchPlan plan{decl, a, c, {}, {}, {}};
    auto pa = path_to(*b[a], scratch), pb = path_to(*b[c], scratch);
    if (!pa || !pb || pa->size() != pb->size()) return std::nullopt;
    plan.pa = *pa, plan.pb = *pb;
    Stmt& store_stmt = *pa->back().loop->body[pa->back().child];
    Stmt& load_stmt = *pb->back().loop->body[pb->back().child];
    auto store = scratch_store(store_stmt, scratch);
    SubscriptExpr* load = scratch_load(load_stmt, scratch);
    if (!store || !load) return std::nullopt;

    // Statements between the two nests move above the producer: they must commute with it.
    for (size_t k = a + 1; k < c; ++k)
      if (!commute(b[a], b[k]) || count_uses(*b[k], scratch) > 0) return std::nullopt;

    // The consumer's loop targets become the producer's; every other name the consumer binds and
    // the producer mentions gets a fresh name, so interleaving the two bodies changes nothing.
    Names a_names = names_in(*b[a]), a_written = bound_or_stored(b[a]);
    a_written.erase(scratch);
    for (size_t d = 0; d < pa->size(); ++d) {
      std::string from = text(*(*pb)[d].loop->target), to = text(*(*pa)[d].loop->target);
      if (from != to) plan.renames[from] = to;
    }
    Names b_bound = bound_names((*pb)[0].loop->body);
    Names level_targets;
    for (const auto& l : *pb) level_targets.insert(text(*l.loop->target));
    // Inner loop variables (`for k` in both nests, never assigned otherwise or read outside their
    // loops) can stay as they are: every loop rebinds its variable before using it.
    Names shared_loop_vars, loop_only = for_targets(b[a]);
    loop_only.merge(for_targets(b[c]));
    Names assigned = assigned_names(b[a]);
    assigned.merge(assigned_names(b[c]));
    Names free_reads = reads_of(b[a]);
    free_reads.merge(reads_of(b[c]));
    for (auto& n : b_bound) {
      if (plan.renames.count(n) || level_targets.count(n)) continue;
      if (loop_only.count(n) && !assigned.count(n) && !free_reads.count(n)) {
        shared_loop_vars.insert(n);
        continue;
      }
      if (a_names.count(n)) plan.renames[n] = fresh_name(n, all_names);
    }
    // A loop target taken over from the producer must not capture a name the consumer already
    // uses; fresh names are only given to names local to the two nests.
    Names b_names = names_in(*b[c]), outer_bound;
    for (size_t k = 0; k < c; ++k)
      if (k != a) outer_bound.merge(bound_by(b[k]));
    for (const auto& [from, to] : plan.renames) {
      if (b_names.count(to) && !plan.renames.count(to)) return std::nullopt;
      if (!level_targets.count(from) && outer_bound.count(from) && reads_of(b[c]).count(from)) return std::nullopt;
    }
    // The consumer must not read anything else the producer writes (it would see one iteration's
    // value instead of the last), nor may the producer read what the consumer writes.
    for (const auto& l : *pa) a_written.erase(text(*l.loop->target));  // the shared iteration variables
    Names b_read = names_in(*b[c]);
    for (auto& n : b_read) {
      if (n == scratch || plan.renames.count(n) || shared_loop_vars.count(n)) continue;
      if (a_written.count(n)) return std::nullopt;
    }
    Names b_written = bound_or_stored(b[c]);
    for (const auto& l : *pb) b_written.erase(text(*l.loop->target));
    for (auto& n : b_written)
      if (!plan.renames.count(n) && !shared_loop_vars.count(n) && a_names.count(n)) return std::nullopt;
    // Names the nests bind must not be read after them (the fused order could leave another value).
    Names later, later_bound;  // read after the nests before being rebound there
    for (size_t k = c + 1; k < b.size(); ++k) {
      Names own = bound_by(b[k]);
      for (auto& n : names_in(*b[k]))
        if (!own.count(n) && !later_bound.count(n)) later.insert(n);
      later_bound.merge(own);
    }
    // (Tensors written through subscripts, like the output, hold the same tiles either way.)
    if (intersects(bound_by(b[a]), later) || intersects(b_bound, later)) return std::nullopt;

    // Same loops at every level (after renaming), and the consumer's statements before the path
    // child may move above the producer's path child and the statements after it.
    for (size_t d = 0; d < pa->size(); ++d) {
      ExprPtr iter_b = clone(*(*pb)[d].loop->iter);
      rename_expr(iter_b, plan.renames);
      if (text(*iter_b) != text(*(*pa)[d].loop->iter)) return std::nullopt;
      if (d + 1 == pa->size()) break;
      Block& ba = (*pa)[d].loop->body;
      Block& bb = (*pb)[d].loop->body;
      for (size_t k = 0; k < (*pb)[d].child; ++k)
        for (size_t m = (*pa)[d].child; m < ba.size(); ++m)
          if (!commute_renamed(bb[k], ba[m], plan.renames)) return std::nullopt;
      // The producer's statements after its path child move below the consumer's path child.
      for (size_t m = (*pa)[d].child + 1; m < ba.size(); ++m)
        if (!commute_renamed(bb[(*pb)[d].child], ba[m], plan.renames)) return std::nullopt;
    }
    // Same tile: indices equal once loop targets are matched and `m = i * 4 + j` style names are
    // expanded on both sides.
    // (Whole subscripts are cloned: an index with slices does not parse on its own.)
    ExprPtr idx_a = clone(*store->dst), idx_b = clone(*load);
    expand(idx_a, simple_defs(*pa));
    expand(idx_b, simple_defs(*pb));  // in the consumer's own names, then renamed
    rename_expr(idx_b, plan.renames);
    if (text(*idx_a) != text(*idx_b)) return std::nullopt;
    // Every iteration writes its own tile: a level variable missing from the index means a tile
    // overwritten by later iterations, which the consumer saw only in its last version. (Tiles of
    // different iterations that overlap, `S[i:i + 2]`, are not detected; the five-seed check is.)
    Names idx_names = names_in(*idx_a);
    for (const auto& l : *pa)
      if (!idx_names.count(text(*l.loop->target))) return std::nullopt;
    // The stored value must still hold the tile where the load was: nothing after the store in
    // the producer's innermost body rebinds or overwrites it.
    Block& inner = pa->back().loop->body;
    for (size_t m = pa->back().child + 1; m < inner.size(); ++m)
      if (bound_or_stored(inner[m]).count(store->value)) return std::nullopt;
    return plan;
  }

  static void rename_expr(ExprPtr& e, const std::map<std::string, std::string>& renames) {
    if (!e) return;
    if (e->kind == ExprKind::Name) {
      auto it = renames.find(static_cast<NameExpr&>(*e).id);
      if (it != renames.end()) static_cast<NameExpr&>(*e).id = it->second;
    }
    for_each_child(*e, [&](ExprPtr& c) { rename_expr(c, renames); });
  }

  static bool commute_renamed(StmtPtr& consumer_stmt, StmtPtr& producer_stmt,
                              const std::map<std::string, std::string>& renames) {
    auto rn = [&](Names in) {
      Names out;
      for (auto& n : in) out.insert(renames.count(n) ? renames.at(n) : n);
      return out;
    };
    Names c_reads = rn(reads_of(consumer_stmt)), c_written = rn(bound_or_stored(consumer_stmt));
    return !intersects(c_written, reads_of(producer_stmt)) && !intersects(bound_or_stored(producer_stmt), c_reads);
  }

  static void rewrite(Block& b, const std::string& scratch, const ScratchPlan& plan) {
    rename_all(*b[plan.consumer], plan.renames);
    std::string loaded = assigned_name(*plan.pb.back().loop->body[plan.pb.back().child]);
    bool load_only_use = count_uses(*b[plan.consumer], loaded) == 1 + count_uses_after(plan.pb.back(), loaded);
    // Fuse level by level. Each body is head | path child | tail; the fused body is
    // A.head, B.head, fused(A.child, B.child), A.tail, B.tail (analyse() checked the moves).
    ForStmt* fa = static_cast<ForStmt*>(b[plan.producer].get());
    StmtPtr consumer_level = std::move(b[plan.consumer]);  // keeps the consumer's loops alive
    std::vector<StmtPtr> keep;
    ForStmt* fb = static_cast<ForStmt*>(consumer_level.get());
    for (size_t d = 0; d < plan.pa.size(); ++d) {
      size_t ca = plan.pa[d].child, cb = plan.pb[d].child;
      Block merged;
      for (size_t k = 0; k < ca; ++k) merged.push_back(std::move(fa->body[k]));
      StmtPtr child_a = std::move(fa->body[ca]), child_b = std::move(fb->body[cb]);
      if (d + 1 < plan.pa.size()) {
        for (size_t k = 0; k < cb; ++k) merged.push_back(std::move(fb->body[k]));
        ForStmt* next_a = static_cast<ForStmt*>(child_a.get());
        merged.push_back(std::move(child_a));
        for (size_t k = ca + 1; k < fa->body.size(); ++k) merged.push_back(std::move(fa->body[k]));
        for (size_t k = cb + 1; k < fb->body.size(); ++k) merged.push_back(std::move(fb->body[k]));
        fa->body = std::move(merged);
        fa = next_a;
        fb = static_cast<ForStmt*>(child_b.get());
        keep.push_back(std::move(child_b));
        continue;
      }
      // Innermost: the store goes away and the loaded name becomes the stored value.
      std::string value = scratch_store(*child_a, scratch)->value;
      for (size_t k = ca + 1; k < fa->body.size(); ++k) merged.push_back(std::move(fa->body[k]));
      for (size_t k = 0; k < cb; ++k) merged.push_back(std::move(fb->body[k]));
      Block rest;
      for (size_t k = cb + 1; k < fb->body.size(); ++k) rest.push_back(std::move(fb->body[k]));
      bool substitutable = load_only_use;  // the loaded name is used only after the load, in this body
      for (auto& s : rest) substitutable = substitutable && !bound_by(s).count(loaded) && !bound_by(s).count(value);
      if (substitutable) {
        for (auto& s : rest) rename(*s, loaded, value);
      } else {
        merged.push_back(parse_stmt(fmt::format("{} = {}", loaded, value)));
      }
      for (auto& s : rest) merged.push_back(std::move(s));
      fa->body = std::move(merged);
    }
    // The statements between the nests go above the fused nest; the declaration goes away.
    StmtPtr producer = std::move(b[plan.producer]);
    std::vector<StmtPtr> middle;
    for (size_t k = plan.producer + 1; k < plan.consumer; ++k) middle.push_back(std::move(b[k]));
    b.erase(b.begin() + static_cast<long>(plan.producer), b.begin() + static_cast<long>(plan.consumer) + 1);
    size_t at = plan.producer;
    for (auto& s : middle) b.insert(b.begin() + static_cast<long>(at++), std::move(s));
    b.insert(b.begin() + static_cast<long>(at), std::move(producer));
    erase_stmt(b, plan.decl);
  }

  static int count_uses_after(const Level& l, const std::string& id) {
    int n = 0;
    for (size_t k = l.child + 1; k < l.loop->body.size(); ++k) n += count_uses(*l.loop->body[k], id);
    return n;
  }

  // Renames names simultaneously (a -> b and b -> c do not chain).
  static void rename_all(Stmt& s, const std::map<std::string, std::string>& renames) {
    for_each_expr(s, [&](ExprPtr& p) {
      if (!p || p->kind != ExprKind::Name) return;
      auto it = renames.find(static_cast<NameExpr&>(*p).id);
      if (it != renames.end()) static_cast<NameExpr&>(*p).id = it->second;
    });
  }
};

// Whether `s` is `buf[...] = nl.load(...)` (possibly inside nested loops of such statements).
bool only_loads_into(Stmt& s, const std::string& buf) {
  if (s.kind == StmtKind::For) {
    auto& f = static_cast<ForStmt&>(s);
    return !f.body.empty() &&
           std::all_of(f.body.begin(), f.body.end(), [&](StmtPtr& c) { return only_loads_into(*c, buf); });
  }
  if (s.kind != StmtKind::Assign) return false;
  auto& a = static_cast<AssignStmt&>(s);
  if (a.targets.size() != 1 || a.targets[0]->kind != ExprKind::Subscript || root_name(*a.targets[0]) != buf) return false;
  return as_call(a.value.get(), "nl.load") != nullptr;
}

class HoistLoadLoop : public MatchingTransform {
 public:
  std::string name() const override { return "hoist_load_loop"; }
  std::string description() const override {
    return "move a buffer and the loop that fills it from HBM out of an enclosing loop whose iterations all load "
           "the same data (weights reloaded per row block)";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    Names stored_to_hbm = subscript_stored(kernel);  // nl.store targets too: sources that change
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (b[i]->kind != StmtKind::For) continue;
        auto& loop = static_cast<ForStmt&>(*b[i]);
        Names loop_bound = bound_names(loop.body);
        loop_bound.merge(names_in(*loop.target));
        for (size_t p = 0; p < loop.body.size(); ++p) {
          std::string buf = assigned_name(*loop.body[p]);
          if (buf.empty() || !as_call(assigned_value(*loop.body[p]), "nl.ndarray")) continue;
          size_t q = next_use(loop.body, p, buf);
          if (q == loop.body.size() || loop.body[q]->kind != StmtKind::For || !only_loads_into(*loop.body[q], buf))
            continue;
          // Invariant: neither the declaration nor the fill loop reads anything the enclosing loop
          // binds (other than what the fill loop binds itself), or a tensor the kernel writes.
          Names fill_own = bound_by(loop.body[q]);
          Names reads = names_in(*loop.body[q]);
          reads.merge(names_in(*loop.body[p]));
          reads.erase(buf);
          bool invariant = true;
          for (auto& n : reads)
            if ((loop_bound.count(n) && !fill_own.count(n)) || stored_to_hbm.count(n)) invariant = false;
          if (!invariant) continue;
          // Nothing else in the loop writes the buffer, and nothing between the two statements uses it.
          int writes = 0;
          for (size_t k = 0; k < loop.body.size(); ++k)
            if (k != q && stored_by(loop.body[k]).count(buf)) ++writes;
          if (writes > 0 || count_bindings(loop.body, buf) != 1) continue;
          Site site = make_site(*loop.body[q], fmt::format("hoist `{}` and its fill loop `{}` out of `{}`", buf,
                                                           brief(*loop.body[q]), brief(loop)));
          if (sink(std::move(site), [&b, &loop, i, p, q] {
                StmtPtr fill = std::move(loop.body[q]);
                StmtPtr decl = std::move(loop.body[p]);
                erase_stmt(loop.body, q);
                erase_stmt(loop.body, p);
                if (loop.body.empty()) loop.body.push_back(parse_stmt("pass"));
                b.insert(b.begin() + static_cast<long>(i), std::move(fill));
                b.insert(b.begin() + static_cast<long>(i), std::move(decl));
              }))
            return true;
        }
      }
      return false;
    });
  }

 private:
  static int count_bindings(Block& body, const std::string& id) {
    int n = 0;
    for_each_block(body, [&](Block& blk) {
      for (auto& s : blk) n += assigned_name(*s) == id ? 1 : 0;
    });
    return n;
  }
};

}  // namespace

std::unique_ptr<Transform> make_forward_scratch() { return std::make_unique<ForwardScratch>(); }
std::unique_ptr<Transform> make_hoist_load_loop() { return std::make_unique<HoistLoadLoop>(); }

}  // namespace agents::builtin
