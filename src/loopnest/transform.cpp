#include "loopnest/transform.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/opened_calls.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/item_loop.h"
#include "loopnest/jam_inline.h"
#include "loopnest/lift.h"
#include "loopnest/node_lookup.h"
#include "loopnest/helper_bodies.h"
#include "loopnest/places.h"
#include "loopnest/privatize.h"
#include "loopnest/tidy.h"
#include "nki/ast_printer.h"

namespace loopnest {

std::string Site::key() const {
  std::string k = transform + " " + anchor;
  for (const auto& [name, value] : params) k += fmt::format(" {}={}", name, value);
  return k;
}

std::vector<Site> Transform::find(const Kernel& k) const {
  Kernel copy = k;
  std::vector<Site> out;
  visit(copy, [&](const Site& s, const Action&) {
    out.push_back(s);
    out.back().transform = name();
    return false;
  });
  return out;
}

void Transform::apply(Kernel& k, const Site& site) const {
  bool done = false;
  auto matches = [&](const Site& s) { return s.params == site.params && (s.node == site.node || s.anchor == site.anchor); };
  // Prefer the node id (same lift), else the anchor (the same op in a re-lifted text) on the site's
  // line, else the anchor alone (a re-lifted text whose lines moved). Two loops of one nest share
  // their anchor (the nest's first operation): jam_rows by 2 of `for g` and of `for qi` differ only
  // by their line, and without it applying the second applied the first (author42 gqa_full).
  enum class By { Node, AnchorLine, Anchor };
  for (By by : {By::Node, By::AnchorLine, By::Anchor}) {
    if (by == By::AnchorLine && site.line <= 0) continue;
    visit(k, [&](const Site& s, const Action& act) {
      if (!matches(s)) return false;
      if (by == By::Node ? s.node != site.node : s.anchor != site.anchor) return false;
      if (by == By::AnchorLine && s.line != site.line) return false;
      act();
      done = true;
      return true;
    });
    if (done) return;
  }
  // One move at every copy of a statement (places.cpp), when the move itself offers no such site.
  if (apply_at_places(k, *this, site)) return;
  throw TransformError(fmt::format("the site '{}' is not in this kernel", site.key()));
}

// open_composite.cpp: nl.softmax spelled out as the instructions it runs; open_composites opens
// every such call of the kernel and returns how many.
std::unique_ptr<Transform> make_open_composite();
// reduce_chunks.cpp: a whole-row reduction taken chunk by chunk in the loop writing the row.
std::unique_ptr<Transform> make_reduce_per_chunk();
std::unique_ptr<Transform> make_psum_accumulate();
std::unique_ptr<Transform> make_matmul_accumulate();
std::unique_ptr<Transform> make_transpose_on_pe();
std::unique_ptr<Transform> make_reuse_loaded();
std::unique_ptr<Transform> make_evacuate_psum();
std::unique_ptr<Transform> make_broadcast_on_chip();
std::unique_ptr<Transform> make_pipeline_scan();  // pipeline_scan.cpp
std::unique_ptr<Transform> make_fill_partitions();
std::unique_ptr<Transform> make_rmw_to_psum();
// order_stages.cpp: a loop nest moved up right after the sibling nest producing what it reads.
std::unique_ptr<Transform> make_order_stages();
// retile_flat.cpp: an elementwise nest on P < 128 partitions walked in 128-partition tiles of flat views.
std::unique_ptr<Transform> make_retile_flat();
// middle_end.cpp: @nki.compiler.skip_middle_end_transformations removed.
std::unique_ptr<Transform> make_middle_end();
int open_composites(Kernel& k);

const std::vector<std::unique_ptr<Transform>>& transforms() {
  static const std::vector<std::unique_ptr<Transform>> all = [] {
    std::vector<std::unique_ptr<Transform>> v;
    v.push_back(make_fold_silu());
    v.push_back(make_fold_scalar_ops());
    v.push_back(make_fold_scale());
    v.push_back(make_fold_scalar_tensor_tensor());
    v.push_back(make_fold_reciprocal());
    v.push_back(make_fold_bias());
    v.push_back(make_fold_scale_through_reduce());
    v.push_back(make_engine_assign());
    v.push_back(make_coarsen());
    v.push_back(make_fuse_nests());
    v.push_back(make_fold_activation_reduce());
    v.push_back(make_whole_row_reduce());
    v.push_back(make_reduce_per_chunk());
    v.push_back(make_hoist());
    v.push_back(make_jam_rows());
    v.push_back(make_interchange());
    v.push_back(make_affine_loop());
    v.push_back(make_middle_end());
    v.push_back(make_chunk_rows());
    v.push_back(make_fold_rows());
    v.push_back(make_defer_normalization());
    v.push_back(make_pipeline_prep());
    v.push_back(make_forward_scratch());
    v.push_back(make_free_size());
    v.push_back(make_reorder_reuse());
    v.push_back(make_in_place());
    v.push_back(make_hoist_expand());
    v.push_back(make_hoist_compute());
    v.push_back(make_expand_buffer());
    v.push_back(make_expand_interchange());
    v.push_back(make_privatize_buffer());
    v.push_back(make_coalesce_stores());
    v.push_back(make_fill_partitions());
    v.push_back(make_retile_flat());
    v.push_back(make_hoist_transpose());
    v.push_back(make_forward_defer());
    v.push_back(make_reuse_operand());
    v.push_back(make_feed_pe_first());
    v.push_back(make_order_stages());
    v.push_back(make_open_composite());
    v.push_back(make_psum_accumulate());
    v.push_back(make_matmul_accumulate());
    v.push_back(make_transpose_on_pe());
    v.push_back(make_rmw_to_psum());
    v.push_back(make_reuse_loaded());
    v.push_back(make_evacuate_psum());
    v.push_back(make_broadcast_on_chip());
    v.push_back(make_pipeline_scan());
    return v;
  }();
  return all;
}

const Transform* find_transform(const std::string& name) {
  for (const auto& t : transforms())
    if (t->name() == name) return t.get();
  return nullptr;
}

namespace {

std::vector<Site> sites_of(const Kernel& k);

}  // namespace

namespace {

// The kernel's own arguments as a lift of it takes them: arrays of constant shape and the scalars
// or tuples the task passed (`eps` between two arrays); nullopt when an array's shape is not
// constant or a parameter before an array was not passed. Parameters after the last passed one
// (`eps=1e-6`, which a task leaves at its default) are left to their defaults: the printed kernel
// is lifted again and must give the same form (emit_checked).
std::optional<std::vector<ArgSpec>> own_args(const Kernel& k) {
  std::vector<ArgSpec> args;
  for (size_t i = 0; i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    if (p.tensor < 0) {
      if (p.passed) {
        args.push_back(*p.passed);
        continue;
      }
      for (size_t j = i; j < k.params.size(); ++j)
        if (k.params[j].tensor >= 0 || k.params[j].passed) return std::nullopt;
      break;
    }
    ArgSpec a;
    for (const auto& d : k.tensor(p.tensor).shape) {
      if (!d.is_constant()) return std::nullopt;
      a.shape.push_back(d.constant());
    }
    a.dtype = k.tensor(p.tensor).dtype;
    args.push_back(a);
  }
  return args;
}

// `opened` with its helpers opened (`count` of them) and, given `composites`, its composite calls
// (open_composite.cpp), printed back; the reason when that fails.
std::optional<std::string> open_checked(Kernel& opened, int& count, int* composites = nullptr) {
  count = 0;
  auto args = own_args(opened);
  if (!args) return std::string("an argument is not an array of known shape");
  try {
    count = open_helpers(opened);
    if (composites) *composites = open_composites(opened);
    if (count > 0 || (composites && *composites > 0)) emit_checked(opened, *args);
  } catch (const TransformError& e) {
    return std::string(e.what());
  } catch (const EmitError& e) {
    return std::string(e.what());
  } catch (const LiftError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

// `k` rewritten by `undo` (a normalisation: flattened loops split, hand-written pipelines undone),
// printed and lifted again: the moves then see the nest as an author who wrote it so would give it
// (a move that copies a statement as written copies the printed one). The number of places `undo`
// changed (0, `k` unchanged, when none is or the result does not print back).
int relifted_after(Kernel& k, const std::function<int(Kernel&)>& undo) {
  auto args = own_args(k);
  if (!args) return 0;
  Kernel changed = k;
  try {
    const int count = undo(changed);
    if (count) k = lift_source(k.module->file->path, emit_checked(changed, *args), *args, k.entry, k.nc_version);
    return count;
  } catch (const TransformError&) {
  } catch (const EmitError&) {
  } catch (const LiftError&) {
  }
  return 0;
}

// The flattened loops split (unflatten_loops); the hand-written software pipelines undone
// (unpipeline_loops), so the moves see each iteration's own tile.
int unflatten_checked(Kernel& k) { return relifted_after(k, unflatten_loops); }
int unpipeline_checked(Kernel& k) { return relifted_after(k, unpipeline_loops); }

// The flattened loops split once their pipelines are undone (held-out adamw: `for t` over (row
// tile, column tile) prefetching through rings, which carried them until then). Such a loop was
// run in order for its rings alone: unpipeline_loops writes it affine where the dependence test can
// tell (write_affine), which a flattened index (`t // 2`, `t % 2`) defeats; the loops of the split
// are written affine where their iterations commute.
int unflatten_undone(Kernel& k) {
  std::set<int> before;
  for (const auto& [id, l] : k.loops) before.insert(id);
  const int count = unflatten_loops(k);
  if (count == 0) return 0;
  // The dependence test reads the split nest as lifted (its ranges, its tiles per iteration): the
  // new loops, by their fresh names, judged on the kernel printed and lifted again.
  std::set<std::string> split;
  for (const auto& [id, l] : k.loops)
    if (!before.count(id)) split.insert(l.var);
  k = reprinted(k);
  std::vector<int> nodes;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Loop && split.count(k.loops.at(n.loop).var)) nodes.push_back(n.id);
  });
  for (int id : nodes) write_affine(k, id);
  return count;
}

}  // namespace

std::optional<std::vector<ArgSpec>> own_arguments(const Kernel& k) { return own_args(k); }

Kernel reprinted(const Kernel& k) {
  auto args = own_args(k);
  if (!args) throw TransformError("an argument is not an array of known shape");
  try {
    return lift_source(k.module->file->path, emit_checked(k, *args), *args, k.entry, k.nc_version);
  } catch (const EmitError& e) {
    throw TransformError(e.what());
  } catch (const LiftError& e) {
    throw TransformError(e.what());
  }
}

std::optional<std::string> helpers_stay_closed(const Kernel& k) {
  Kernel opened = k;
  int count = 0;
  return open_checked(opened, count);
}

std::optional<ClosedInlines> inlines_stay_closed(const Kernel& k) {
  auto why = helpers_stay_closed(k);
  if (!why) return std::nullopt;
  ClosedInlines out;
  out.why = *why;
  std::function<void(const std::vector<Node>&)> walk = [&](const std::vector<Node>& block) {
    for (const auto& n : block) {
      if (auto kind = openable_kind(n)) {
        out.kinds.insert(*kind);
        if (!out.line && n.origin) out.line = static_cast<int>(n.origin->span.line);
        continue;
      }
      if (!n.frozen) walk(n.body), walk(n.orelse);
    }
  };
  walk(k.body);
  return out;
}

std::string describe(const ClosedInlines& c) {
  std::vector<std::string> parts;
  if (c.kinds.count(InlineKind::HelperCall)) parts.push_back("the helpers called in its loops");
  if (c.kinds.count(InlineKind::TraceTimeWhile)) parts.push_back("the while loops run at trace time");
  if (c.kinds.count(InlineKind::HostSequenceFor)) parts.push_back("the loops over host sequences");
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? (i + 1 == parts.size() ? " and " : ", ") : "") + parts[i];
  if (c.line) out += fmt::format(" (the first at line {})", c.line);
  return out;
}

namespace {

// A site's move, its anchor's operation and its parameters but the loop's name: the same site in a
// form of the kernel whose loops are named otherwise (its flattened loops split, its launch opened).
std::string key_by_operation(const Site& s) {
  std::string key = s.transform + " " + s.anchor.substr(s.anchor.find('/') + 1);
  for (const auto& [name, value] : s.params)
    if (name != "loop") key += " " + name + "=" + value;
  return key;
}

// A kernel launched on a grid by a wrapper (Kernel::grid: every program runs the form on its own)
// offers no move across programs: a load that every program of one grid row repeats (`x` of its row
// block, the `x @ a` every column block recomputes) cannot leave them. Lifted with the launch kept
// as the wrapper's call and that call opened (its program ids the wrapper's loops, open_helpers),
// it can: the sites only that form offers, with the parameter launch=open (apply_site lifts and
// opens it so; the printed kernel is the wrapper holding the program loops, @nki.jit as the launched
// function was). A site both forms offer (same move, operation and parameters, the program loops
// aside) is the adopted form's.
void launch_sites(const Kernel& k, std::vector<Site>& out) {
  if (k.grid.empty()) return;
  auto args = own_args(k);
  if (!args) return;
  Kernel opened;
  try {
    opened = lift(k.module, *args, k.entry, k.nc_version, Launch::Kept);
  } catch (const LiftError&) {
    return;
  }
  int count = 0;
  if (open_checked(opened, count) || count == 0) return;
  std::set<std::string> seen;
  for (const auto& s : out) seen.insert(key_by_operation(s));
  for (auto& s : sites_of(opened)) {
    if (seen.count(key_by_operation(s))) continue;
    s.params["launch"] = "open";
    out.push_back(std::move(s));
  }
}

}  // namespace

namespace {

std::vector<Site> form_sites(const Kernel& k);

// A site's move at its operation, whatever form of the kernel offered it (the parameters saying
// which form, and the line, aside).
std::string key_in_any_form(const Site& s) {
  std::string key = s.transform + " " + s.anchor;
  for (const auto& [name, value] : s.params)
    if (name != "line" && name != "helpers" && name != "composites" && name != "flat_loops" && name != "pipeline")
      key += " " + name + "=" + value;
  return key;
}

// The sites inside the bodies of the helpers the kernel calls (and of its loops over host
// sequences), printed in those bodies (helper_bodies.h), with the parameter helpers=body: each
// applied to a copy at every call and offered only when that prints back. The same move at another
// call of the helper is the same site (it is made at every call): the first call's is offered, in
// the place of the helpers=open sites of that move at any of the calls (the move printed in the
// author's helper rather than the helper inlined at one call).
void helper_body_sites(const Kernel& k, std::vector<Site>& out) {
  Kernel bodies = k;
  if (unfreeze_helper_bodies(bodies) == 0) return;
  auto args = own_args(k);
  if (!args) return;
  const std::vector<int> inside = helper_body_nodes(bodies);
  const std::set<int> in_body(inside.begin(), inside.end());
  std::map<std::string, size_t> by_result;  // the move and the kernel it prints -> its site in `found`
  std::map<std::string, size_t> body_of;    // a move at any call (key_in_any_form) -> its site in `found`
  std::vector<Site> found;
  std::vector<int> calls;  // how many calls' sites each body site stands for
  // A move the kernel as lifted offers already (one that edits a module constant, whatever node
  // anchors it) is its own.
  std::set<std::string> plain;
  for (const auto& s : out)
    if (!s.params.count("helpers")) plain.insert(key_in_any_form(s));
  for (auto& s : sites_of(bodies)) {
    if (!in_body.count(s.node) || plain.count(key_in_any_form(s))) continue;
    const Transform* t = find_transform(s.transform);
    if (!t) continue;
    s.params["helpers"] = "body";
    std::string result;
    try {
      // As apply_site will (the move at every call, the kernel tidied, refused results refused).
      result = s.transform + "\n" + apply_site(*t, k.module->file->path, k.module->file->text, *args, s, k.entry, k.nc_version);
    } catch (const TransformError&) {
      continue;
    } catch (const EmitError&) {
      continue;
    } catch (const LiftError&) {
      continue;
    }
    auto [it, fresh] = by_result.try_emplace(result, found.size());
    body_of[key_in_any_form(s)] = it->second;
    if (fresh) found.push_back(std::move(s)), calls.push_back(0);
    ++calls[it->second];
  }
  // Each body site in the place of the first opened site of its move; the others after the list.
  std::vector<bool> placed(found.size(), false);
  std::vector<Site> merged;
  for (auto& s : out) {
    auto b = s.params.count("helpers") ? body_of.find(key_in_any_form(s)) : body_of.end();
    if (b == body_of.end()) {
      merged.push_back(std::move(s));
      continue;
    }
    if (!placed[b->second]) merged.push_back(found[b->second]);
    placed[b->second] = true;
    // A move between engines at one call of several keeps its own site beside the move at every
    // call (as places.cpp keeps one copy's): the balance may lie between them.
    const Transform* t = find_transform(s.transform);
    if (t && t->balances_engines() && calls[b->second] > 1) merged.push_back(std::move(s));
  }
  for (size_t i = 0; i < found.size(); ++i)
    if (!placed[i]) merged.push_back(std::move(found[i]));
  out = std::move(merged);
}

}  // namespace

std::vector<Site> find_sites(const Kernel& k) {
  std::vector<Site> out = form_sites(k);
  helper_body_sites(k, out);
  return out;
}

namespace {

std::vector<Site> form_sites(const Kernel& k) {
  std::vector<Site> out = sites_of(k);
  // The opened kernel must print back to itself (its helpers' code in place of the calls): checked
  // once here on the kernel's own arguments (array parameters only), so no site is offered whose
  // every application would fail.
  // Also with its composite calls (nl.softmax) spelled out: a move on their instructions (the row
  // sum into the activation) is offered on the kernel as written, with the parameter
  // composites=open, rather than only after an opening that by itself gains nothing.
  // And with its flattened loops split into their nest (unflatten.cpp), when that prints back: a
  // flattened loop's anchors name its one trip (`448/load#0`) where the nest's name two
  // (`32x14/load#0`), so a site of the split kernel repeats one of the kernel's when the move, its
  // parameters (but the loop's name) and the anchor's operation are the same.
  Kernel opened = k;
  int count = 0, composites = 0;
  if (open_checked(opened, count, &composites)) opened = k, count = composites = 0;
  int split = unflatten_checked(opened);
  // And with its hand-written pipelines undone (unpipeline.cpp): a prefetched rotating buffer is a
  // value carried across iterations, which hides every per-iteration tile from the moves.
  const int unpiped = unpipeline_checked(opened);
  // A flattened loop that carried a rotating buffer splits once the pipeline is undone (held-out
  // adamw: `for t` over (row tile, column tile) prefetching through rings).
  if (unpiped) split += relifted_after(opened, unflatten_undone);
  // And with its loops over the query heads of KV groups split by group (group_split.cpp): only the
  // hoists that then take the group's shared work out of the group loop, as one step.
  Kernel grouped = opened;
  std::vector<std::string> inner_vars;
  const int groups = relifted_after(grouped, [&](Kernel& g) { return split_groups(g, &inner_vars); });
  launch_sites(k, out);
  if (count + composites + split + unpiped + groups == 0) return out;
  auto repeat_key = [&](const Site& s) {
    return split || unpiped ? key_by_operation(s) : s.transform + " " + s.anchor;
  };
  auto mark = [&](Site& s) {
    if (count) s.params["helpers"] = "open";
    if (composites) s.params["composites"] = "open";
    if (split) s.params["flat_loops"] = "split";
    if (unpiped) s.params["pipeline"] = "undone";
  };
  if (count + composites + split + unpiped > 0) {
    std::set<std::string> seen;
    for (const auto& s : out) seen.insert(repeat_key(s));
    for (auto& s : sites_of(opened)) {
      if (seen.count(repeat_key(s))) continue;
      mark(s);
      out.push_back(std::move(s));
    }
  }
  if (groups) {
    // A hoist the kernel offers already (out of loops the statement does not use at all) is its own.
    std::set<std::string> seen;
    for (const auto& s : out) seen.insert(key_by_operation(s));
    for (auto& s : group_hoist_sites(grouped, inner_vars, sites_of)) {
      mark(s);
      if (seen.count(key_by_operation(s))) continue;
      s.params["groups"] = "split";
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace

namespace {

// A comprehension lifted as its loop (lift_rolled.cpp) prints back only as a comprehension: one
// statement making its item. A move that changes it otherwise (fuses two of them, jams rows into
// one, renames a list it copies) gives a form with no spelling in the text, so on a kernel holding
// such a loop each site is applied to a copy and printed, and offered only when that prints.
bool has_rolled_loop(const Kernel& k, const std::vector<Node>& nodes) {
  for (const Node& n : nodes) {
    if (rolled_comprehension(k, n) || item_loop(k, n)) return true;
    if (has_rolled_loop(k, n.body) || has_rolled_loop(k, n.orelse)) return true;
  }
  return false;
}

bool prints_back(const Kernel& k, const Transform& t, const Site& s, const std::vector<ArgSpec>& args) {
  Kernel after = k;
  const std::set<int> single_before = single_trip_loops(after);
  try {
    t.apply(after, s);
  } catch (const TransformError&) {
    return false;
  }
  // Why a site is dropped, for whoever asks (ACCELOPT_DEBUG_ROLLED).
  auto dropped = [&](const std::exception& e) {
    if (std::getenv("ACCELOPT_DEBUG_ROLLED")) fmt::print(stderr, "{}: {}\n", s.key(), e.what());
  };
  Kernel tidy = after;
  for (Kernel* x : {&after, &tidy}) {
    if (x == &tidy && drop_single_trip_loops(tidy, single_before) + drop_empty_loops(tidy) == 0) break;
    try {
      emit_checked(*x, args);
      return true;
    } catch (const EmitError& e) {
      dropped(e);
    } catch (const LiftError& e) {
      dropped(e);
    }
  }
  return false;
}

// So does a list's item printed from the form (`ins[0]` of an opened helper's comprehension over a
// host list, a `map` of lambdas opened): printed with the other items of its list as one display
// (emit_list_display.cpp), which a move splitting or renaming the items does not keep.
bool has_list_display(const Kernel& k, const std::vector<Node>& nodes) {
  for (const Node& n : nodes) {
    if (n.kind == NodeKind::Stmt && (n.dirty || !n.origin) && !n.ops.empty() && n.ops.back().result >= 0) {
      if (list_item_name(k.tensor(n.ops.back().result).name)) return true;
    }
    if (has_list_display(k, n.body) || has_list_display(k, n.orelse)) return true;
  }
  return false;
}

std::vector<Site> sites_of(const Kernel& k) {
  std::vector<Site> out;
  const ResultBaseline base = baseline_of(k);
  const std::optional<std::vector<ArgSpec>> print_args =
      has_rolled_loop(k, k.body) || has_list_display(k, k.body) ? own_args(k) : std::nullopt;
  for (const auto& t : transforms()) {
    try {
      std::vector<Site> found = t->find(k);
      gather_places(k, *t, found);
      for (auto& s : found) {
        if (print_args && !prints_back(k, *t, s, *print_args)) continue;
        // Applied to a copy where the result may be refused: a move that resizes tiles (limits), and
        // any move on a kernel with `//` / `%` indices (a row substituted into `i // 4` by jam_rows
        // stays a `//` in every copy). Without such indices no substitution of an affine loop
        // variable makes one.
        if ((t->resizes_tiles() && base.within_limits) || !base.quasi_kinds.empty()) {
          Kernel after = k;
          try {
            t->apply(after, s);
          } catch (const TransformError&) {
            continue;  // does not apply after all
          }
          if (result_refusal(base, after)) continue;
        }
        out.push_back(std::move(s));
      }
    } catch (const TransformError&) {
      // This transformation cannot analyse the kernel: it has no sites.
    }
  }
  return out;
}

}  // namespace

std::string apply_site(const std::string& path, const std::string& text, const std::vector<ArgSpec>& args,
                       const Site& site, const std::string& entry, int nc_version) {
  const Transform* t = find_transform(site.transform);
  if (!t) throw TransformError(fmt::format("unknown transformation '{}'", site.transform));
  return apply_site(*t, path, text, args, site, entry, nc_version);
}

namespace {

// A site that changes a size (`from=1024 value=512`) the source names in the kernel body
// (`block = 1024`): the source with that binding alone changed, when it lifts to exactly the
// transformed form. Printing it keeps the author's names (`n_size // block`, `n * block`) where
// the form would print the new trips, shapes and indices as numbers; the diff is the move.
// A tile_size site says no size: every integer the kernel body or the module binds by name
// (`BLOCK = 64`, a GPU port's block size) is tried at `factor` times (coarsen) or a `factor`-th
// (split) its value, the same proof deciding.
std::optional<std::string> rebound_size(const Kernel& after, const std::string& path, const std::string& text,
                                        const std::vector<ArgSpec>& args, const Site& site) {
  auto from = site.params.find("from"), value = site.params.find("value");
  auto factor = site.params.find("factor"), direction = site.params.find("direction");
  const bool sized = from != site.params.end() && value != site.params.end();
  const bool scaled = site.transform == "tile_size" && factor != site.params.end() && direction != site.params.end() &&
                      (direction->second == "coarsen" || direction->second == "split");
  // The AST the form was lifted from (a transformation changes the form, never its source).
  if ((!sized && !scaled) || !after.function || !after.module) return std::nullopt;
  std::vector<std::string> lines;
  {
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  std::vector<const nki::Stmt*> bindings;
  for (const auto& st : after.function->body) bindings.push_back(st.get());
  if (scaled)
    for (const auto& st : after.module->body) bindings.push_back(st.get());
  std::string want = dump(after);
  for (const nki::Stmt* st : bindings) {
    if (st->kind != nki::StmtKind::Assign) continue;
    const auto& a = static_cast<const nki::AssignStmt&>(*st);
    if (a.targets.size() != 1 || a.targets[0]->kind != nki::ExprKind::Name || !a.value ||
        a.value->kind != nki::ExprKind::Constant)
      continue;
    const nki::Value& v = static_cast<const nki::ConstantExpr&>(*a.value).value;
    const nki::Span& sp = a.value->span;
    if (!v.is_int() || sp.line != sp.end_line || sp.line == 0 || sp.line > lines.size()) continue;
    const std::string old_text = std::to_string(v.as_int());
    std::string new_text;
    if (sized) {
      if (old_text != from->second) continue;
      new_text = value->second;
    } else {
      const int64_t f = std::stoll(factor->second);
      if (f < 2 || v.as_int() < 2) continue;
      if (direction->second == "coarsen") new_text = std::to_string(v.as_int() * f);
      else if (v.as_int() % f == 0) new_text = std::to_string(v.as_int() / f);
      else continue;
    }
    std::string& line = lines[sp.line - 1];
    size_t at = sp.col > 0 ? sp.col - 1 : 0;
    if (line.compare(at, old_text.size(), old_text) != 0) continue;
    std::string edited;
    for (size_t i = 0; i < lines.size(); ++i)
      edited += (i + 1 == sp.line ? line.substr(0, at) + new_text + line.substr(at + old_text.size()) : lines[i]) +
                (i + 1 < lines.size() || (!text.empty() && text.back() == '\n') ? "\n" : "");
    try {
      if (dump(lift_source(path, edited, args, after.entry, after.nc_version)) == want) return edited;
    } catch (const LiftError&) {
    }
  }
  return std::nullopt;
}

}  // namespace

std::string apply_site(const Transform& t, const std::string& path, const std::string& text,
                       const std::vector<ArgSpec>& args, const Site& site, const std::string& entry,
                       int nc_version) {
  Site inner = site;
  const bool launch = inner.params.erase("launch") > 0;
  Kernel k = lift_source(path, text, args, entry, nc_version, launch ? Launch::Kept : Launch::Adopted);
  if (launch) open_helpers(k);
  // The calls opened for the move, to put back where it leaves them unchanged (reclose_calls.cpp).
  std::vector<OpenedCall> opened_calls;
  Kernel before_open, after_open;
  // helpers=body: the helpers' nodes unfrozen where they are called, the move made at every call
  // and printed in the helper's body (helper_bodies.h).
  const bool in_bodies = inner.params.count("helpers") && inner.params.at("helpers") == "body";
  if (in_bodies) {
    inner.params.erase("helpers");
    unfreeze_helper_bodies(k);
  }
  if (inner.params.erase("helpers")) {
    before_open = k;
    open_helpers_recording(k, opened_calls);
    after_open = k;
  }
  if (inner.params.erase("composites")) open_composites(k);
  // The normalised nest (flattened loops split, pipelines undone) printed and lifted again, as
  // find_sites offered its sites (relifted_after).
  std::string source = text;
  auto relift = [&](const char* param, int (*undo)(Kernel&), const char* what) {
    if (!inner.params.erase(param) || undo(k) == 0) return;
    try {
      source = emit_checked(k, args);
    } catch (const EmitError& e) {
      throw TransformError(fmt::format("{}: the kernel with its {} cannot be printed back: {}", site.key(), what, e.what()));
    }
    k = lift_source(path, source, args, entry, nc_version);
  };
  const bool flat = inner.params.count("flat_loops") > 0, piped = inner.params.count("pipeline") > 0;
  relift("flat_loops", unflatten_loops, "flattened loops split");
  relift("pipeline", unpipeline_loops, "pipelines undone");
  // As find_sites: the loops the undone pipelines leave flattened split after them.
  if (flat && piped) {
    inner.params["flat_loops"] = "split";
    relift("flat_loops", unflatten_undone, "flattened loops split");
  }
  relift("groups", split_group_loops, "loops split by group");
  const ResultBaseline base = baseline_of(k);
  const std::set<int> single_before = single_trip_loops(k);
  if (in_bodies) apply_at_every_call(k, t, inner);
  else t.apply(k, inner);
  if (auto why = result_refusal(base, k)) throw TransformError(site.key() + *why);
  if (!opened_calls.empty()) {
    Kernel closed = k;
    if (reclose_unchanged_calls(closed, before_open, after_open, opened_calls) > 0) {
      try {
        emit_checked(closed, args);
        k = std::move(closed);
      } catch (const EmitError&) {
      } catch (const LiftError&) {
      } catch (const TransformError&) {
      }
    }
  }
  if (auto edited = rebound_size(k, path, source, args, site)) return *edited;
  // Without the loops of one iteration and the bindings the move left behind, where that prints.
  {
    Kernel tidy = k;
    const int dropped = drop_single_trip_loops(tidy, single_before) + drop_empty_loops(tidy);
    if (dropped + drop_dead_bindings(tidy, text) > 0) {
      try {
        return emit_checked(tidy, args);
      } catch (const EmitError&) {
      }
    }
  }
  try {
    return emit_checked(k, args);
  } catch (const EmitError& e) {
    throw TransformError(fmt::format("{} cannot be printed back: {}", site.key(), e.what()));
  }
}

std::string apply_every_site(const std::string& name, const std::string& path, std::string text,
                             const std::vector<ArgSpec>& args, const std::string& entry, int nc_version) {
  const Transform* t = find_transform(name);
  if (!t) throw TransformError(fmt::format("no transformation '{}'", name));
  for (;;) {
    std::vector<Site> sites = find_sites(lift_source(path, text, args, entry, nc_version));
    auto site = std::find_if(sites.begin(), sites.end(), [&](const Site& s) { return s.transform == name; });
    if (site == sites.end()) return text;
    text = apply_site(*t, path, text, args, *site, entry, nc_version);
  }
}

Node declaration_node(Kernel& k, int t) {
  const Tensor& tt = k.tensor(t);
  Op alloc;
  alloc.api = "nl.ndarray";
  alloc.cls = OpClass::Alloc;
  alloc.dst = whole_of(k, t);
  Operand shape;
  shape.kind = Operand::Kind::Shape;
  shape.shape = tt.shape;
  alloc.args = {arg("shape", shape), arg("dtype", symbol("dtype:" + (tt.dtype.empty() ? "float32" : tt.dtype))),
                arg("buffer", symbol(std::string("buffer:") + (tt.memory == Memory::Psum ? "psum" : "sbuf")))};
  return new_statement(k, {alloc});
}

Op zeros_declaration(const Kernel& k, int t, Memory memory) {
  Op zeros;
  zeros.api = "nl.zeros";
  zeros.cls = OpClass::Memset;
  zeros.engine = Engine::Vector;
  zeros.dst = whole_of(k, t);
  Operand shape;
  shape.kind = Operand::Kind::Shape;
  shape.shape = k.tensor(t).shape;
  zeros.args = {arg("shape", shape), arg("dtype", symbol("dtype:float32")),
                arg("buffer", symbol(std::string("buffer:") + (memory == Memory::Psum ? "psum" : "sbuf")))};
  return zeros;
}

Node new_statement(Kernel& k, std::vector<Op> ops) {
  Node n;
  n.kind = NodeKind::Stmt;
  n.id = k.next_node++;
  n.dirty = true;
  n.ops = std::move(ops);
  return n;
}

Node split_index_binding(Kernel& k, const std::string& var, const std::string& outer, const std::string& block,
                         const std::string& inner) {
  Node bind;
  bind.kind = NodeKind::Meta;
  bind.meta = MetaKind::Binding;
  bind.id = k.next_node++;
  bind.binds = {var};
  bind.dirty = true;
  bind.patch = fmt::format("{} = {} * {} + {}", var, outer, block, inner);
  return bind;
}

std::string fresh_loop_var(const Kernel& k, const std::string& base) {
  std::set<std::string> used;
  for (const auto& [id, l] : k.loops) used.insert(l.var);
  for (const auto& t : k.tensors) used.insert(t.name);
  const std::string& text = k.module->file->text;
  auto free = [&](const std::string& v) { return !used.count(v) && text.find(v) == std::string::npos; };
  std::string v = base;
  for (int i = 2; !free(v); ++i) v = fmt::format("{}{}", base, i);
  return v;
}

Node hbm_reshape_view(Kernel& k, int base, const std::string& suffix, const std::vector<IExpr>& shape, int scope_loop,
                      int& view) {
  Tensor v;
  const Tensor& b = k.tensor(base);
  v.name = fresh_loop_var(k, b.name + suffix);
  v.role = TensorRole::View;
  v.base = base;
  v.memory = Memory::Hbm;
  v.partition_dim = -1;
  v.dtype = b.dtype;
  v.shape = shape;
  v.scope_loop = scope_loop;
  std::string dims;
  for (const auto& d : shape) dims += (dims.empty() ? "" : ", ") + k.str(d);
  std::string text = fmt::format("{} = {}.reshape(({}))", v.name, b.name, dims);
  view = add_tensor(k, v);
  Node decl;
  decl.kind = NodeKind::Meta;
  decl.meta = MetaKind::View;
  decl.id = k.next_node++;
  decl.dirty = true;
  decl.patch = text;
  decl.binds = {k.tensor(view).name};
  decl.view = whole_of(k, view);
  return decl;
}

std::string fresh_copy_name(const Kernel& k, const std::string& name, const std::set<std::string>& taken) {
  const std::string& text = k.module->file->text;
  std::string fresh;
  // An item of a list (`ins[1]`, lift_assign.cpp): the list renamed (`ins_2[1]`), still Python.
  const auto item = list_item_name(name);
  for (int i = 2; fresh.empty() || taken.count(fresh) || text.find(fresh) != std::string::npos; ++i)
    fresh = item ? fmt::format("{}_{}{}", item->first, i, item->second) : fmt::format("{}_{}", name, i);
  return fresh;
}

int add_loop(Kernel& k, Loop l) {
  l.id = static_cast<int>(k.loops.size());
  while (k.loops.count(l.id)) ++l.id;
  k.loops[l.id] = l;
  return l.id;
}

std::string authored_bound(const Node& n) {
  if (n.kind != NodeKind::Loop || !n.origin || n.origin->kind != nki::StmtKind::For) return "";
  const auto& f = static_cast<const nki::ForStmt&>(*n.origin);
  if (!f.iter || f.iter->kind != nki::ExprKind::Call) return "";
  const auto& call = static_cast<const nki::CallExpr&>(*f.iter);
  if (call.args.size() != 1 || !call.keywords.empty() || call.args[0]->kind == nki::ExprKind::Constant) return "";
  return nki::print_expr(*call.args[0]);
}

std::string range_header(const Node& n, const std::string& var, const std::string& bound) {
  if (authored_bound(n).empty()) return "";
  const auto& call = static_cast<const nki::CallExpr&>(*static_cast<const nki::ForStmt&>(*n.origin).iter);
  return fmt::format("for {} in {}({}):", var, nki::print_expr(*call.func), bound);
}

std::string authored_header(const Node& n, const std::string& var, const std::string& divisor) {
  std::string bound = authored_bound(n);
  if (bound.empty()) return "";
  if (divisor != "1") {
    const auto& call = static_cast<const nki::CallExpr&>(*static_cast<const nki::ForStmt&>(*n.origin).iter);
    if (call.args[0]->kind != nki::ExprKind::Name) bound = "(" + bound + ")";
    bound = fmt::format("{} // {}", bound, divisor);
  }
  return range_header(n, var, bound);
}

std::string authored_header(const Node& n, const std::string& var, int64_t divisor) {
  return authored_header(n, var, std::to_string(divisor));
}

void ops_of(Node& n, std::vector<Op*>& out) {
  for (auto& op : n.ops) out.push_back(&op);
  for (auto& b : n.body) ops_of(b, out);
  for (auto& b : n.orelse) ops_of(b, out);
}

void redeclare(Kernel& k, const std::set<int>& tensors) {
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      const ApiSpec* spec = find_api(op.api);
      if (!spec || !spec->creates || !op.dst || !tensors.count(op.dst->tensor)) continue;
      const Tensor& t = k.tensor(op.dst->tensor);
      op.dst = whole_of(k, t.id);
      if (Arg* s = op.arg("shape"); s && s->value.kind == Operand::Kind::Shape) {
        s->value.shape = t.shape;
        s->value.origin = nullptr;
      }
      n.dirty = true;
    }
  });
}

ResultBaseline baseline_of(const Kernel& k) { return {!limit_violation(k), quasi_affine_kinds(k)}; }

std::optional<std::string> result_refusal(const ResultBaseline& before, Kernel& after) {
  if (before.within_limits)
    if (auto v = limit_violation(after)) return ": the hardware would refuse it: " + *v;
  remove_dead_buffers(after);
  // A kind of `//` or `%` index the kernel did not have is a layout no move here was made for. More
  // of a kind it has are the copies of its statements (jam_rows, splits) and stand.
  for (const std::string& kind : quasi_affine_kinds(after))
    if (!before.quasi_kinds.count(kind))
      return std::string(" would add a `//` or `%` index term the kernel does not have");
  return std::nullopt;
}

namespace {

// Calls `seen` with every `//` / `%` piece of the kernel's accesses: the kind of each (an IExpr
// term `//4`, `%2`; an axis term `a//128%4`), whatever variable or axis it applies to.
void for_each_quasi_affine(const Kernel& k, const std::function<void(const std::string&)>& seen) {
  auto in_expr = [&](const IExpr& e) {
    for (const auto& [key, term] : e.terms()) {
      if (term.first.kind == TermKind::FloorDiv) seen(fmt::format("//{}", term.first.divisor));
      if (term.first.kind == TermKind::Mod) seen(fmt::format("%{}", term.first.divisor));
    }
  };
  auto in_access = [&](const Access& a) {
    for (const auto& d : a.dims) {
      in_expr(d.start);
      for (const auto& t : d.terms)
        if (!t.affine()) seen(fmt::format("a//{}%{}", t.div, t.mod));
    }
  };
  for_each_node(k.body, [&](const Node& node, const std::vector<int>&) {
    for (const auto& op : node.ops) {
      if (op.dst) in_access(*op.dst);
      for (const auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile) in_access(a.value.access);
    }
    if (node.view) in_access(*node.view);
  });
}

}  // namespace

int quasi_affine_terms(const Kernel& k) {
  int n = 0;
  for_each_quasi_affine(k, [&](const std::string&) { ++n; });
  return n;
}

std::set<std::string> quasi_affine_kinds(const Kernel& k) {
  std::set<std::string> kinds;
  for_each_quasi_affine(k, [&](const std::string& kind) { kinds.insert(kind); });
  return kinds;
}

Site make_site(const Kernel& k, const Analysis& an, const OpRef& anchor, std::string summary,
               std::map<std::string, std::string> params) {
  Site s;
  s.params = std::move(params);
  s.anchor = op_signature(k, an, anchor);
  s.summary = std::move(summary);
  s.node = anchor.node->id;
  s.line = anchor.node->origin ? static_cast<int>(anchor.node->origin->span.line) : 0;
  return s;
}

void note_relief(const Kernel& k, const Analysis& an, const std::set<const Op*>& fewer, Site& s) {
  for (const Op* op : fewer) {
    if (is_declaration(*op) || op->engine == Engine::None) continue;
    s.relieves.insert(to_string(op->engine));
    for (const Access* w : writes(*op))
      for (const OpRef* r : an.region_readers(k, *w))
        if (!fewer.count(&r->op()) && r->op().engine != Engine::None) s.feeds.insert(to_string(r->op().engine));
  }
}

std::optional<Site> make_loop_site(const Kernel& k, const Analysis& an, const Node& loop, std::string summary,
                                   std::map<std::string, std::string> params) {
  const OpRef* anchor = first_op_in(an, loop.loop);
  if (!anchor) return std::nullopt;
  // The program loops of an opened launch share their first operation and their line (the launched
  // body's first): the loop is named (`program=program_id_1`), or their sites would read alike.
  if (k.loops.at(loop.loop).program) params["program"] = k.loops.at(loop.loop).var;
  Site s = make_site(k, an, *anchor, std::move(summary), std::move(params));
  s.node = loop.id;
  s.line = loop.origin ? static_cast<int>(loop.origin->span.line) : 0;
  return s;
}

namespace {

bool erase_in(std::vector<Node>& block, int id) {
  for (size_t i = 0; i < block.size(); ++i) {
    if (block[i].id == id) {
      block.erase(block.begin() + static_cast<long>(i));
      return true;
    }
    if (erase_in(block[i].body, id) || erase_in(block[i].orelse, id)) return true;
  }
  return false;
}

}  // namespace

bool erase_node(Kernel& k, int id) { return erase_in(k.body, id); }
Node* find_node(Kernel& k, int id) { return find_node(k.body, id); }

std::vector<int> open_loop_ids(Kernel& k) {
  std::vector<int> ids;
  for_each_node(k.body, [&](Node& n, const std::vector<int>&) {
    // A loop over a host sequence keeps its header as written (Loop::host_items): the moves that
    // change loops leave it alone.
    if (n.kind == NodeKind::Loop && !n.frozen && !k.loops.at(n.loop).host_items) ids.push_back(n.id);
  });
  return ids;
}

const Operand* operand(const Op& op, const char* name) {
  const Arg* a = op.arg(name);
  return a ? &a->value : nullptr;
}

std::string symbol_of(const Op& op, const char* name) {
  const Operand* o = operand(op, name);
  return o && o->kind == Operand::Kind::Symbol ? o->symbol : "";
}

bool names_word(const std::string& text, const std::string& name) {
  if (name.empty()) return false;
  auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1))
    if ((at == 0 || !word(text[at - 1])) && (at + name.size() >= text.size() || !word(text[at + name.size()])))
      return true;
  return false;
}

bool mentions(const Kernel& k, const Node& n, const std::string& name) {
  // A node a transformation wrote (a binding `t = t_blk * 14 + t_in`) is printed from its patch.
  if (n.kind == NodeKind::Meta && !n.patch.empty()) return names_word(n.patch, name);
  if (!n.origin) return false;
  for (uint32_t line = n.origin->span.line; line <= n.origin->span.end_line; ++line)
    if (names_word(k.module->file->line_text(line), name)) return true;
  return false;
}

void split_leading_ops(Kernel& k, std::vector<Node>& block, size_t position, size_t count) {
  Node& n = block[position];
  Node first = new_statement(k, std::vector<Op>(n.ops.begin(), n.ops.begin() + static_cast<long>(count)));
  n.ops.erase(n.ops.begin(), n.ops.begin() + static_cast<long>(count));
  n.dirty = true;
  block.insert(block.begin() + static_cast<long>(position), std::move(first));
}

Operand symbol(const std::string& s) {
  Operand o;
  o.kind = Operand::Kind::Symbol;
  o.symbol = s;
  return o;
}

Operand number_operand(double v) {
  Operand o;
  o.kind = Operand::Kind::Number;
  o.number = v;
  return o;
}

int written_whole(const Kernel& k, const Op& op) {
  if (op.accumulate) return -1;
  if (op.result >= 0) return op.result;
  if (!op.dst || !op.dst_first) return -1;
  const Tensor& t = k.tensor(op.dst->tensor);
  return t.on_chip() && t.role == TensorRole::Buffer && *op.dst == whole_of(k, t.id) ? t.id : -1;
}

Operand tile_operand(const Access& a) {
  Operand o;
  o.kind = Operand::Kind::Tile;
  o.access = a;
  return o;
}

Arg arg(const std::string& name, Operand value, bool output) {
  Arg a;
  a.name = name;
  a.value = std::move(value);
  a.output = output;
  return a;
}

// `like` with another API and main arguments; keeps its destination, mask, dtype and engine.
Op rebuild(const Op& like, const std::string& api, std::vector<Arg> args) {
  const ApiSpec* spec = find_api(api);
  Op op;
  op.api = api;
  op.cls = spec ? spec->cls : OpClass::Other;
  op.engine = spec ? spec->engine : Engine::None;
  op.dst = like.dst;
  op.dst_origin = like.dst_origin;
  op.dst_first = like.dst_first;
  op.result = like.result;
  op.accumulate = like.accumulate;
  op.mask = like.mask;
  op.has_mask = like.has_mask;
  op.dtype = like.dtype;
  op.origin = like.origin;
  op.origin_api = like.origin_api;
  auto accepts = [&](const std::string& p) {
    return spec && std::find(spec->params.begin(), spec->params.end(), p) != spec->params.end();
  };
  for (const char* keep : {"mask", "dtype", "engine"}) {
    const Arg* a = like.arg(keep);
    if (a && accepts(keep)) {
      Arg copy = *a;
      copy.positional = false;
      args.push_back(copy);
      if (std::string(keep) == "engine") op.engine = like.engine, op.engine_explicit = like.engine_explicit;
    }
  }
  for (auto& a : args) a.positional = false;
  op.args = std::move(args);
  return op;
}

void say_result_dtype(const Kernel& k, Op& op) {
  if (op.result < 0 || op.dst_first || op.arg("dtype") || op.api.rfind("nisa.", 0) != 0) return;
  const ApiSpec* spec = find_api(op.api);
  if (!spec || std::find(spec->params.begin(), spec->params.end(), "dtype") == spec->params.end()) return;
  std::string inferred = spec->result_dtype;
  for (const auto& a : op.args)
    if (inferred.empty() && a.value.kind == Operand::Kind::Tile) inferred = k.tensor(a.value.access.tensor).dtype;
  if (inferred.empty()) inferred = "float32";
  const std::string& have = k.tensor(op.result).dtype;
  if (have == inferred) return;
  op.args.push_back(arg("dtype", symbol("dtype:" + have)));
  op.args.back().positional = false;
  op.dtype = have;
}

void remove_dead_buffers(Kernel& k) {
  std::set<int> used;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      for (const Access* a : reads(op)) used.insert(storage_of(k, a->tensor));
      for (const Access* a : writes(op)) used.insert(storage_of(k, a->tensor));
    }
    // `sb_cos = sb_coeff[...]` names a region of the buffer: its declaration stays while the view does.
    if (n.kind == NodeKind::Meta && n.meta == MetaKind::View && n.view) used.insert(storage_of(k, n.view->tensor));
  });
  for (int t : k.outputs) used.insert(t);
  std::vector<int> dead;
  for_each_node(k.body, [&](const Node& n, const std::vector<int>&) {
    if (n.kind != NodeKind::Stmt || n.frozen || n.ops.size() != 1) return;
    const Op& op = n.ops[0];
    if (op.cls != OpClass::Alloc || !op.dst) return;
    const Tensor& t = k.tensor(op.dst->tensor);
    if (t.on_chip() && !used.count(t.id)) dead.push_back(n.id);
  });
  for (int id : dead) erase_node(k, id);
}

}  // namespace loopnest
