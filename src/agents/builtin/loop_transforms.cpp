// Loop-structure transformations: hoist loop-invariant work, recompute a value inside its only
// consumer loop, interchange a perfect nest, fuse adjacent loops over the same range, split a
// loop into independent halves.
#include <algorithm>

#include "agents/builtin/transform_util.h"
#include "nki/ast_printer.h"

namespace agents::builtin {

namespace {

using namespace nki;

// Calls whose result depends only on their arguments (no accumulation or aliasing semantics), so
// they may move across a loop boundary when their inputs do not change.
bool movable_call(Expr* v) {
  static const char* kPure[] = {"nl.load", "nl.load_transpose2d", "nisa.nc_transpose", "nl.transpose",
                                "nisa.memset", "nl.broadcast_to", "nisa.iota", "nisa.activation",
                                "nisa.tensor_scalar", "nl.copy", "nisa.tensor_copy", "nl.multiply", "nl.add"};
  if (!v) return false;
  std::string name = call_name(*v);
  return std::any_of(std::begin(kPure), std::end(kPure), [&](const char* p) { return name == p; });
}

std::set<std::string> loop_bound(ForStmt& f) {
  std::set<std::string> bound = bound_names(f.body);
  for (auto& n : names_in(*f.target)) bound.insert(n);
  return bound;
}

int count_bindings(Block& body, const std::string& id) {
  int n = 0;
  for_each_block(body, [&](Block& blk) {
    for (auto& s : blk) n += assigned_name(*s) == id ? 1 : 0;
  });
  return n;
}

class HoistInvariant : public MatchingTransform {
 public:
  std::string name() const override { return "hoist_invariant"; }
  std::string description() const override {
    return "move a load, transpose or broadcast whose inputs do not change out of its loop";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (b[i]->kind != StmtKind::For) continue;
        auto& loop = static_cast<ForStmt&>(*b[i]);
        // An input the loop writes in any way (rebinds, stores through a subscript, or names as a
        // destination-first `dst=`) is no invariant: `buf[...] = nl.load(x[i])` then `y = nl.multiply(buf,
        // 2.0)` reads a new tile each iteration.
        std::set<std::string> written = loop_bound(loop), stored = subscript_stored(loop.body);
        written.insert(stored.begin(), stored.end());
        for (size_t s = 0; s < loop.body.size(); ++s) {
          std::string t = assigned_name(*loop.body[s]);
          Expr* v = assigned_value(*loop.body[s]);
          if (t.empty() || !movable_call(v) || intersects(names_in(*v), written)) continue;
          if (count_bindings(loop.body, t) != 1 || stored.count(t)) continue;
          Site site = make_site(*loop.body[s], fmt::format("hoist `{}` out of `{}` (it is the same every iteration)",
                                                           brief(*loop.body[s]), brief(loop)));
          if (sink(std::move(site), [&b, &loop, i, s] {
                StmtPtr moved = std::move(loop.body[s]);
                erase_stmt(loop.body, s);
                if (loop.body.empty()) loop.body.push_back(parse_stmt("pass"));
                b.insert(b.begin() + static_cast<long>(i), std::move(moved));
              }))
            return true;
        }
      }
      return false;
    });
  }
};

class SinkRecompute : public MatchingTransform {
 public:
  std::string name() const override { return "sink_recompute"; }
  std::string description() const override {
    return "recompute (or reload) a value inside the one loop that consumes it instead of keeping it alive "
           "across the kernel (shorter live range, fewer spills)";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        std::string t = assigned_name(*b[i]);
        Expr* v = assigned_value(*b[i]);
        if (t.empty() || !movable_call(v) || call_name(*v) == "nisa.memset") continue;
        size_t j = next_use(b, i, t);
        if (j == b.size() || b[j]->kind != StmtKind::For || next_use(b, j, t) != b.size()) continue;
        auto& loop = static_cast<ForStmt&>(*b[j]);
        std::set<std::string> stored = subscript_stored(loop.body), in_loop = loop_bound(loop);
        in_loop.insert(stored.begin(), stored.end());
        if (intersects(names_in(*v), in_loop) || stored.count(t)) continue;
        if (count_uses(*b[i], t) != 1 || count_bindings(loop.body, t) != 0) continue;
        bool inputs_stable = true;  // nothing between the definition and the loop writes an input
        for (size_t k = i + 1; k < j; ++k)
          if (intersects(names_in(*v), written_names_of(*b[k]))) inputs_stable = false;
        if (!inputs_stable) continue;
        Site site = make_site(*b[i], fmt::format("recompute `{}` inside `{}` instead of keeping it live",
                                                 brief(*b[i]), brief(loop)));
        if (sink(std::move(site), [&b, &loop, i] {
              StmtPtr moved = std::move(b[i]);
              loop.body.insert(loop.body.begin(), std::move(moved));
              erase_stmt(b, i);
            }))
          return true;
      }
      return false;
    });
  }

 private:
  static std::set<std::string> written_names_of(Stmt& s) {
    Block one;
    one.push_back(StmtPtr(&s));
    std::set<std::string> out = written_names(one);
    one[0].release();
    return out;
  }
};

class Interchange : public MatchingTransform {
 public:
  std::string name() const override { return "interchange"; }
  std::string description() const override {
    return "swap the two loops of a perfect nest (changes which operand stays resident and the DMA order)";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (auto& s : b) {
        if (s->kind != StmtKind::For) continue;
        auto& outer = static_cast<ForStmt&>(*s);
        if (outer.body.size() != 1 || outer.body[0]->kind != StmtKind::For) continue;
        auto& inner = static_cast<ForStmt&>(*outer.body[0]);
        if (intersects(names_in(*inner.iter), names_in(*outer.target))) continue;
        // Only `nl.affine_range` promises iterations that do not depend on each other (LANG): a
        // sequential_range, static_range or range loop may carry a value (a scan's carry tile
        // written each iteration and read by the next), which a swap would hand to the wrong one.
        if (!as_call(outer.iter.get(), "nl.affine_range") || !as_call(inner.iter.get(), "nl.affine_range")) continue;
        Site site = make_site(outer, fmt::format("interchange `{}` and `{}`", brief(outer), brief(inner)));
        if (sink(std::move(site), [&outer, &inner] {
              std::swap(outer.target, inner.target);
              std::swap(outer.iter, inner.iter);
            }))
          return true;
      }
      return false;
    });
  }
};

// Whether `writer` changes a name `reader` reads that `reader` does not bind itself (a tile stored
// through a subscript or a destination-first `dst=` always counts); loop targets aside.
bool hands_on(Block& writer, Block& reader, const std::string& writer_target, const std::string& reader_target) {
  std::set<std::string> carried = bound_names(writer);
  for (const auto& n : bound_names(reader)) carried.erase(n);
  carried.merge(subscript_stored(writer));
  carried.erase(writer_target);
  std::set<std::string> read = names_in(reader);
  read.erase(reader_target);
  return intersects(carried, read);
}

class FuseLoops : public MatchingTransform {
 public:
  std::string name() const override { return "fuse_loops"; }
  std::string description() const override {
    return "fuse two adjacent loops over the same range so producer and consumer tiles live one iteration";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i + 1 < b.size(); ++i) {
        if (b[i]->kind != StmtKind::For || b[i + 1]->kind != StmtKind::For) continue;
        auto& first = static_cast<ForStmt&>(*b[i]);
        auto& second = static_cast<ForStmt&>(*b[i + 1]);
        if (first.target->kind != ExprKind::Name || second.target->kind != ExprKind::Name) continue;
        if (text(*first.iter) != text(*second.iter)) continue;
        // Neither loop may read what the other writes: iteration i of the second could need
        // iteration j > i of the first (a tile stored through a subscript or `dst=`, or a name's value
        // after the first loop ends), and iteration i + 1 of the first would read what iteration i
        // of the second overwrote. A name both loops bind is each iteration's own temporary.
        std::string from = text(*second.target), to = text(*first.target);
        if (hands_on(first.body, second.body, to, from) || hands_on(second.body, first.body, from, to)) continue;
        if (from != to && names_in(second.body).count(to)) continue;
        Site site = make_site(first, fmt::format("fuse `{}` with the following loop over the same range", brief(first)));
        if (sink(std::move(site), [&b, &first, &second, i, from, to] {
              for (auto& st : second.body) {
                rename(*st, from, to);
                first.body.push_back(std::move(st));
              }
              erase_stmt(b, i + 1);
            }))
          return true;
      }
      return false;
    });
  }
};

class SplitLoop : public MatchingTransform {
 public:
  std::string name() const override { return "split_loop"; }
  std::string description() const override {
    return "split a loop whose body has two independent halves into two loops (each half's tiles live shorter)";
  }

 protected:
  bool visit(Block& kernel, const SiteSink& sink) const override {
    return visit_blocks(kernel, [&](Block& b) {
      for (size_t i = 0; i < b.size(); ++i) {
        if (b[i]->kind != StmtKind::For) continue;
        auto& loop = static_cast<ForStmt&>(*b[i]);
        for (size_t p = 1; p < loop.body.size(); ++p) {
          if (!independent(loop, p)) continue;
          Site site = make_site(loop, fmt::format("split `{}` before its statement {} into two loops", brief(loop), p + 1),
                                {{"at", std::to_string(p)}});
          if (sink(std::move(site), [&b, &loop, i, p] { split(b, loop, i, p); })) return true;
        }
      }
      return false;
    });
  }

 private:
  static bool independent(ForStmt& loop, size_t p) {
    Block head, tail;  // borrowed views of the two halves (released below)
    for (size_t k = 0; k < loop.body.size(); ++k) (k < p ? head : tail).push_back(StmtPtr(loop.body[k].get()));
    std::set<std::string> head_names, tail_names, head_bound = bound_names(head), tail_bound = bound_names(tail);
    for (auto& s : head) head_names.merge(names_in(*s));
    for (auto& s : tail) tail_names.merge(names_in(*s));
    std::set<std::string> head_stored = subscript_stored(head), tail_stored = subscript_stored(tail);
    for (auto& s : head) s.release();
    for (auto& s : tail) s.release();
    std::set<std::string> target = names_in(*loop.target);
    for (auto& t : target) head_bound.erase(t), tail_bound.erase(t);
    return !intersects(head_bound, tail_names) && !intersects(tail_bound, head_names) &&
           !intersects(head_stored, tail_names) && !intersects(tail_stored, head_names);
  }

  static void split(Block& b, ForStmt& loop, size_t i, size_t p) {
    StmtPtr copy = parse_stmt(fmt::format("for {} in {}:\n    pass", text(*loop.target), text(*loop.iter)));
    auto& second = static_cast<ForStmt&>(*copy);
    second.body.clear();
    for (size_t k = p; k < loop.body.size(); ++k) second.body.push_back(std::move(loop.body[k]));
    loop.body.resize(p);
    b.insert(b.begin() + static_cast<long>(i) + 1, std::move(copy));
  }
};

}  // namespace

std::unique_ptr<Transform> make_hoist_invariant() { return std::make_unique<HoistInvariant>(); }
std::unique_ptr<Transform> make_sink_recompute() { return std::make_unique<SinkRecompute>(); }
std::unique_ptr<Transform> make_interchange() { return std::make_unique<Interchange>(); }
std::unique_ptr<Transform> make_fuse_loops() { return std::make_unique<FuseLoops>(); }
std::unique_ptr<Transform> make_split_loop() { return std::make_unique<SplitLoop>(); }

}  // namespace agents::builtin
