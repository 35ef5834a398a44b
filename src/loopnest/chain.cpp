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
#include <set>

#include <fmt/core.h>

#include "loopnest/transform.h"

namespace loopnest {

namespace {

class Chain : public Transform {
 public:
  Chain(std::string name, std::string first, std::string second, std::string why)
      : name_(std::move(name)), first_(std::move(first)), second_(std::move(second)), why_(std::move(why)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return why_; }

 protected:
  bool visit(Kernel& k, const SiteSink& sink) const override {
    const Transform* first = find_transform(first_);
    const Transform* second = find_transform(second_);
    if (!first || !second) return false;
    std::set<std::string> before;
    for (const Site& s : second->find(k)) before.insert(s.key());
    for (const Site& a : first->find(k)) {
      Kernel after = k;
      try {
        first->apply(after, a);
      } catch (const TransformError&) {
        continue;
      }
      for (const Site& b : second->find(after)) {
        if (before.count(b.key())) continue;  // offered without the first move: not its enabling
        Site s = a;
        s.transform = name_;
        s.params["then"] = b.anchor;
        for (const auto& [key, value] : b.params) s.params["then_" + key] = value;
        s.summary = fmt::format("{}; then {}", a.summary, b.summary);
        Action act = [&k, first, second, a, b] {
          first->apply(k, a);
          second->apply(k, b);
        };
        if (sink(s, act)) return true;
      }
    }
    return false;
  }

 private:
  std::string name_, first_, second_, why_;
};

}  // namespace

std::unique_ptr<Transform> make_forward_defer() {
  return std::make_unique<Chain>(
      "forward_defer", "forward_scratch", "defer_normalization",
      "forward an HBM scratch on chip (fuse the nest storing it with the nest loading it back), then scale the rows "
      "of the matmul result instead of its transposed operand: the fused row loop's matmuls stop waiting for the "
      "row's normalization");
}

}  // namespace loopnest
