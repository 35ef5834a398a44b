// Scalar expansion as a move that pays: expand_buffer gives a buffer every iteration of a loop L
// reuses one copy per iteration, which alone is the same work with a wider buffer. What pays is
// where L can then go: L is swapped with the loop inside it as long as interchange_loops allows
// (a selective scan's state loop below its sequence-block loop, then below its channel-tile loop),
// and the statements that do not depend on L's variable are hoisted out of it (the delta and u
// loads and their product, once per block and channel tile instead of once per state). One move,
// because each step alone is no faster than its parent, and a search that keeps the faster kernels
// (and puts a twin of its parent last, search/grouping.h) never takes the next step from it.
//
// Legality is each step's own, decided on the form it is applied to. The site is expand_buffer's
// with the number of loops L went inside and of statements hoisted out of it.
#include <fmt/core.h>

#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"

namespace loopnest {

namespace {

// Swaps loop L with the loop inside it while interchange_loops offers that; returns how often.
// Each step on the form of the last one printed and lifted again (reprinted).
int move_inward(Kernel& k, const std::string& var) {
  const Transform* swap = find_transform("interchange_loops");
  int moved = 0;
  for (int step = 0; swap && step < 8; ++step) {
    const Node* n = loop_node(k, loop_named(k, var));
    if (!n) break;
    bool applied = false;
    for (const Site& s : swap->find(k)) {
      if (s.node != n->id) continue;  // L as the outer loop of the pair: the swap takes it inward
      swap->apply(k, s);
      k = reprinted(k);
      applied = true;
      break;
    }
    if (!applied) break;
    ++moved;
  }
  return moved;
}

// Hoists statements whose innermost loop is L out of it while hoist / hoist_compute offer one.
int hoist_out_of(Kernel& k, const std::string& var) {
  int hoisted = 0;
  for (int step = 0; step < 16; ++step) {
    int loop = loop_named(k, var);
    bool applied = false;
    for (const char* name : {"hoist", "hoist_compute"}) {
      const Transform* t = find_transform(name);
      if (!t || applied) continue;
      for (const Site& s : t->find(k)) {
        std::vector<int> around = loops_around(k, s.node);
        if (around.empty() || around.back() != loop) continue;
        try {
          Kernel after = k;
          t->apply(after, s);
          k = reprinted(after);
        } catch (const TransformError&) {
          continue;
        }
        applied = true;
        break;
      }
    }
    if (!applied) break;
    ++hoisted;
  }
  return hoisted;
}

// The whole move on `k`: expansion, L inward, hoists; false when L does not move. `open`: with
// the module's helper functions opened first (a load in a helper the statement calls hoists only
// then; helpers=open sites do the same), false when there are none.
bool expand_and_sink(Kernel& k, const Transform& expand, const Site& a, const std::string& var, bool open, int& inward,
                     int& hoisted) {
  if (open && open_helpers(k) == 0) return false;
  expand.apply(k, a);
  k = reprinted(k);
  inward = move_inward(k, var);
  if (inward == 0) return false;
  hoisted = hoist_out_of(k, var);
  return true;
}

class ExpandInterchange : public Transform {
 public:
  std::string name() const override { return "expand_interchange"; }
  std::string description() const override {
    return "give a buffer every iteration of a loop reuses one copy per iteration, move that loop inside the loops "
           "the reuse kept it outside of, and hoist what does not depend on it out of it";
  }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    const Transform* expand = find_transform("expand_buffer");
    if (!expand) return false;
    for (const Site& a : expand->find(k)) {
      std::vector<int> around = loops_around(k, a.node);
      int over = std::stoi(a.params.at("over"));
      if (over < 1 || over > static_cast<int>(around.size())) continue;
      int loop = around[around.size() - static_cast<size_t>(over)];
      // Followed by its name through the re-lifts between the steps: offered when it is one loop's.
      const std::string var = k.loops.at(loop).var;
      if (loop_named(k, var) != loop) continue;
      Kernel after = k;  // the move tried on a copy: the site says what it does
      int inward = 0, hoisted = 0;
      bool open = false;
      try {
        if (!expand_and_sink(after, *expand, a, var, false, inward, hoisted)) continue;
        if (hoisted == 0) {
          Kernel opened = k;
          int opened_inward = 0, opened_hoists = 0;
          if (expand_and_sink(opened, *expand, a, var, true, opened_inward, opened_hoists) && opened_hoists > 0)
            inward = opened_inward, hoisted = opened_hoists, open = true;
        }
      } catch (const TransformError&) {
        continue;
      }
      Site s = a;
      s.transform = name();
      s.params["inward"] = std::to_string(inward);
      s.params["hoisted"] = std::to_string(hoisted);
      s.summary = fmt::format("{}; then move `for {}` inside {} loop{} and hoist {} statement{} out of it", a.summary,
                              k.var_name(loop), inward, inward == 1 ? "" : "s", hoisted, hoisted == 1 ? "" : "s");
      Action act = [&k, expand, a, var, open] {
        int moved = 0, hoists = 0;
        expand_and_sink(k, *expand, a, var, open, moved, hoists);
      };
      if (sink(s, act)) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Transform> make_expand_interchange() { return std::make_unique<ExpandInterchange>(); }

}  // namespace loopnest
