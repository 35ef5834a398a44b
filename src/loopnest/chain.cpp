// Two transformations as one move, when the first is what makes the second possible: the first's
// site applied, the second's sites that the result offers and the kernel did not. A search that
// keeps only kernels faster than their parent (a beam of two) never reaches the second when the
// first alone is slower: forwarding rmsnorm_matmul's HBM scratch fuses the normalization into the
// matmul's row loop (+4% under the hold-queue rule: the Tensor Engine now waits for each row's
// ScalarE/VectorE chain), and only then can the row scale be deferred to the matmul's result, which
// takes that chain off the Tensor Engine's path (-12% against the fused kernel, -9% against the
// kernel as written).
//
// Legality is each transformation's own, decided on the form it is applied to; the site is the
// first one's anchor with the second's move as parameters (`then=...`), the same in every style.
#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "loopnest/transform.h"

namespace loopnest {

namespace {

// One step of a chain: a transformation; whether the chain may end before it (the step is taken
// where the kernel offers a site of it, and the chain is a site without it otherwise); whether only
// the sites the previous step made are taken (the step's enabling), or any (a hoist after an
// interchange is another kernel than the same hoist without it, even where both sites read alike:
// same trips, same anchor).
// `without`: sites carrying one of these parameters are not taken.
struct Step {
  std::string transform;
  bool optional = false;
  bool enabled_only = true;
  std::set<std::string> without = {};
};

class Chain : public Transform {
 public:
  Chain(std::string name, std::vector<Step> steps, std::string why)
      : name_(std::move(name)), steps_(std::move(steps)), why_(std::move(why)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return why_; }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    std::vector<const Transform*> moves;
    for (const Step& s : steps_) {
      moves.push_back(find_transform(s.transform));
      if (!moves.back()) return false;
    }
    std::vector<Site> taken;
    return extend(k, k, moves, taken, sink);
  }

 private:
  // The parameter prefix of step `i`'s site in the chain's site: `then` for the second step (the
  // two-step chains' keys as they were), `then2`, `then3` after it.
  static std::string prefix(size_t i) { return i == 1 ? "then" : fmt::format("then{}", i); }

  // The chain's site from the sites taken so far (the first one's anchor, every later one's anchor
  // and parameters under its step's prefix), offered with the action replaying them on `k`.
  bool offer(Kernel& k, const std::vector<const Transform*>& moves, const std::vector<Site>& taken,
             const SiteSink& sink) const {
    Site s = taken[0];
    s.transform = name_;
    std::string summary = taken[0].summary;
    for (size_t i = 1; i < taken.size(); ++i) {
      s.params[prefix(i)] = taken[i].anchor;
      for (const auto& [key, value] : taken[i].params) s.params[prefix(i) + "_" + key] = value;
      summary += fmt::format("; then {}", taken[i].summary);
    }
    s.summary = summary;
    Action act = [&k, moves, taken] {
      for (size_t i = 0; i < taken.size(); ++i) moves[i]->apply(k, taken[i]);
    };
    return sink(s, act);
  }

  // Takes step `taken.size()` on `now` (the kernel after the steps taken): every site of it, or
  // (enabled_only) every one that the kernel before the previous step did not offer.
  bool extend(Kernel& k, const Kernel& now, const std::vector<const Transform*>& moves, std::vector<Site>& taken,
              const SiteSink& sink, const Kernel* before = nullptr) const {
    size_t i = taken.size();
    if (i == steps_.size()) return offer(k, moves, taken, sink);
    std::set<std::string> old;
    if (before && steps_[i].enabled_only)
      for (const Site& s : moves[i]->find(*before)) old.insert(s.key());
    bool any = false;
    for (const Site& site : moves[i]->find(now)) {
      if (old.count(site.key())) continue;
      if (std::any_of(steps_[i].without.begin(), steps_[i].without.end(),
                      [&](const std::string& p) { return site.params.count(p) > 0; }))
        continue;
      Kernel after = now;
      try {
        moves[i]->apply(after, site);
      } catch (const TransformError&) {
        continue;
      }
      any = true;
      taken.push_back(site);
      bool stop = extend(k, after, moves, taken, sink, &now);
      taken.pop_back();
      if (stop) return true;
    }
    if (!any && i > 0 && steps_[i].optional) return offer(k, moves, taken, sink);
    return false;
  }

  std::string name_;
  std::vector<Step> steps_;
  std::string why_;
};

}  // namespace

std::unique_ptr<Transform> make_forward_defer() {
  return std::make_unique<Chain>(
      "forward_defer", std::vector<Step>{{"forward_scratch"}, {"defer_normalization"}},
      "forward an HBM scratch on chip (fuse the nest storing it with the nest loading it back), then scale the rows "
      "of the matmul result instead of its transposed operand: the fused row loop's matmuls stop waiting for the "
      "row's normalization");
}

// The loop an operand's load does not use made the inner one, then the load moved before it into a
// buffer over the loops it does use, then (where a matmul took those tiles untransposed, so the
// compiler transposed each on every use) each tile transposed once into a second buffer. Each step
// alone rarely gains: a search keeping only faster kernels does not take the interchange (the same
// work in another order) nor, after the hoist, the transposes while the other operand's loads
// are the bound; the three together read that operand once per outer iteration and transpose it
// once. An n / m / k matmul with lhs loaded per (n, m, k): m outer, lhs's K blocks loaded and
// transposed once per m (53.05 -> 39.94 ms on a 4096 x 5120 x 12288 fp32 matmul, trn1), after
// which jam_rows on m shares each rhs block between rows (22.77 ms, 95% of peak).
std::unique_ptr<Transform> make_reuse_operand() {
  return std::make_unique<Chain>(
      "reuse_operand",
      // A hoist that still cuts a loop into chunks (its buffer too large for one row of blocks) is
      // not what the interchange was for; applied to the interchanged form in memory it also prints
      // a chunk loop of another trip count than the form's (tutorial matmul: 3 for 4), which the
      // print-back check refuses.
      std::vector<Step>{{"interchange_loops"}, {"hoist_expand", false, false, {"chunk"}}, {"hoist_transpose", true}},
      "make the loop an operand's load does not use the inner one, load the operand once per outer iteration into "
      "a buffer (and transpose each of its tiles once where a matmul took them untransposed)");
}

}  // namespace loopnest
