// Quasi-affine integer expressions over loop induction variables: the index, extent and trip
// arithmetic of a loop nest. An expression is a constant plus integer multiples of terms; a term
// is a loop variable, or a floor division / remainder / min / max / select of sub-expressions
// (the `i // 4`, `i % 4` of packed block indices and the `min(128, rows - r0)` of a ragged last
// tile). Expressions are normalized on construction (like terms merged, constants folded, exact
// divisions simplified), so two spellings of the same index compare equal.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopnest {

class IExpr;

// The values a loop variable takes: [lo, hi] (inclusive). Variables not listed are unbounded.
using Ranges = std::map<int, std::pair<int64_t, int64_t>>;

enum class TermKind : uint8_t { Var, FloorDiv, Mod, Min, Max, Select };
enum class Cmp : uint8_t { Lt, Le, Gt, Ge, Eq, Ne };
const char* symbol(Cmp c);
bool holds(int64_t l, Cmp c, int64_t r);

// One non-constant summand of an IExpr (without its coefficient).
struct Term {
  TermKind kind = TermKind::Var;
  int var = 0;               // Var
  int64_t divisor = 0;       // FloorDiv, Mod
  Cmp cmp = Cmp::Lt;         // Select: args[0] cmp args[1] ? args[2] : args[3]
  std::vector<IExpr> args;   // FloorDiv/Mod: [e]; Min/Max: [a, b]; Select: [l, r, then, else]
  std::string key() const;   // canonical text used for ordering and equality
};

class IExpr {
 public:
  IExpr() = default;
  IExpr(int64_t c) : constant_(c) {}  // NOLINT: integers are expressions
  static IExpr var(int id);
  static IExpr floordiv(const IExpr& e, int64_t d, const Ranges* ranges = nullptr);
  static IExpr mod(const IExpr& e, int64_t d, const Ranges* ranges = nullptr);
  static IExpr min(const IExpr& a, const IExpr& b, const Ranges* ranges = nullptr);
  static IExpr max(const IExpr& a, const IExpr& b, const Ranges* ranges = nullptr);
  static IExpr select(const IExpr& l, Cmp c, const IExpr& r, const IExpr& then, const IExpr& otherwise,
                      const Ranges* ranges = nullptr);

  bool is_constant() const { return terms_.empty(); }
  int64_t constant() const { return constant_; }  // the constant summand
  bool is_affine() const;                         // only Var terms
  int64_t coeff(int var) const;                   // coefficient of a Var term (0 if absent)
  bool uses(int var) const;                       // the variable occurs anywhere (also nested)
  std::vector<int> vars() const;                  // every variable that occurs, sorted
  const std::map<std::string, std::pair<Term, int64_t>>& terms() const { return terms_; }

  IExpr operator+(const IExpr& o) const;
  IExpr operator-(const IExpr& o) const;
  IExpr operator-() const;
  IExpr operator*(int64_t k) const;
  // Product of two expressions; nullopt unless one side is constant.
  std::optional<IExpr> times(const IExpr& o) const;
  // Replaces variable `var` by `with` everywhere.
  IExpr substitute(int var, const IExpr& with, const Ranges* ranges = nullptr) const;

  // Value under an assignment of every variable; nullopt if a variable is unassigned.
  std::optional<int64_t> eval(const std::map<int, int64_t>& values) const;
  // Interval of values over the variables' ranges (sound, not always tight); nullopt if a
  // variable is unbounded.
  std::optional<std::pair<int64_t, int64_t>> bounds(const Ranges& ranges) const;

  // "128*i0 + i1 // 4 + 5" with variables named by `name`.
  std::string str(const std::function<std::string(int)>& name) const;
  bool operator==(const IExpr& o) const { return constant_ == o.constant_ && key_list() == o.key_list(); }
  bool operator!=(const IExpr& o) const { return !(*this == o); }

 private:
  void add_term(const Term& t, int64_t coeff);
  std::string key_list() const;

  int64_t constant_ = 0;
  std::map<std::string, std::pair<Term, int64_t>> terms_;  // key -> (term, coefficient != 0)
};

int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

}  // namespace loopnest
