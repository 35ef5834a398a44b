// Which engines may run a two-operand ALU operation, and which one the compiler picks when the
// kernel leaves it (engine=unknown): the documented ISA facts, one table, each row with its
// source. Every place that decides "which engine runs this op on this dtype" reads it:
//   - the interpreter: the engine it records an nl.* element-wise binary op, nisa.tensor_tensor
//     and nisa.tensor_scalar on, and its check of an engine= the kernel gives
//     (src/nki/lib/language_ops.cpp, isa_module.cpp, compute_ops.cpp);
//   - the loop-nest form: the engine the lift says an instruction runs on (lift_call.cpp) and the
//     engines engine_assign offers (engine.cpp);
//   - the cost model: whether the compiler may balance a tensor_scalar onto the Scalar Engine
//     (cost_model.cpp movable).
// Keyed by the trace's AluOp, so that the cost model asks with what the trace records.
// Header-only: the language core includes it without the simulator (as trn/unary_engine.h, the
// same kind of fact for unary functions).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/ops.h"
#include "trn/trace.h"

namespace trn {

// The trace's name of a binary ALU operator (the operation a tensor_tensor / tensor_scalar records).
inline AluOp alu_of(tensor::BinaryOp op) {
  switch (op) {
    case tensor::BinaryOp::Add: return AluOp::Add;
    case tensor::BinaryOp::Sub: return AluOp::Subtract;
    case tensor::BinaryOp::Mul: return AluOp::Multiply;
    case tensor::BinaryOp::Maximum: return AluOp::Max;
    case tensor::BinaryOp::Minimum: return AluOp::Min;
    case tensor::BinaryOp::Pow: return AluOp::Power;
    case tensor::BinaryOp::BitAnd:
    case tensor::BinaryOp::BitOr:
    case tensor::BinaryOp::BitXor:
    case tensor::BinaryOp::LShift:
    case tensor::BinaryOp::RShift: return AluOp::Bitwise;
    case tensor::BinaryOp::Div: return AluOp::Divide;
    case tensor::BinaryOp::Mod: case tensor::BinaryOp::Fmod: return AluOp::Mod;
    case tensor::BinaryOp::Eq: return AluOp::Equal;
    case tensor::BinaryOp::Ne: return AluOp::NotEqual;
    case tensor::BinaryOp::Lt: return AluOp::Less;
    case tensor::BinaryOp::Le: return AluOp::LessEqual;
    case tensor::BinaryOp::Gt: return AluOp::Greater;
    case tensor::BinaryOp::Ge: return AluOp::GreaterEqual;
    case tensor::BinaryOp::LogicalAnd: return AluOp::LogicalAnd;
    case tensor::BinaryOp::LogicalOr: return AluOp::LogicalOr;
    case tensor::BinaryOp::LogicalXor: return AluOp::LogicalXor;
    default: return AluOp::Other;
  }
}

// The instruction the operation runs in: two tiles, or a tile with a scalar or [P, 1] vector.
enum class AluForm : uint8_t { TensorTensor, TensorScalar };

// The data a row covers: any, or 32-bit integers (int32, uint32: "32-bit integer add").
enum class AluData : uint8_t { Any, Integer32 };

inline bool is_integer32(tensor::DType d) { return tensor::is_integer(d) && tensor::itemsize(d) == 4; }

using EngineSet = uint8_t;  // one bit per Engine
constexpr EngineSet engine_bit(Engine e) { return EngineSet(1u << unsigned(e)); }
constexpr EngineSet engine_set(std::initializer_list<Engine> es) {
  EngineSet s = 0;
  for (Engine e : es) s |= engine_bit(e);
  return s;
}
constexpr uint32_t alu_bits(std::initializer_list<AluOp> ops) {
  static_assert(unsigned(kLastAluOp) < 32, "one bit per AluOp");
  uint32_t s = 0;
  for (AluOp op : ops) s |= uint32_t(1u << unsigned(op));
  return s;
}
constexpr uint32_t kAnyAlu = 0xffffffffu;
constexpr uint8_t kBothForms = 3;  // bit per AluForm
constexpr uint8_t form_bit(AluForm f) { return uint8_t(1u << unsigned(f)); }

struct AluEngineRow {
  uint32_t ops;        // the operations it covers (alu_bits)
  uint8_t forms;       // the instructions it covers (form_bit)
  AluData data;
  EngineSet allowed;   // the engines that may run it (an engine= outside is refused)
  Engine chosen;       // the one the compiler picks for engine=unknown
  std::string_view what;    // the operation, as an error names it
  std::string_view source;  // where the fact is documented
};

// First matching row wins. Not encoded, and why: the ISA operator table's engines column
// (nki-language.md 9.1) also lists subtract, max/min and the comparisons as "Vector" only, but
// 8.3 runs 32-bit integer subtract on GpSimd and tensor_tensor/tensor_scalar take engine=gpsimd
// for any arithmetic op, so the column is not read as exhaustive. ScalarE's tensor_scalar is a
// restriction on the PAIR of steps, not on one operation: scalar_engine_tensor_scalar below.
inline constexpr std::array<AluEngineRow, 5> alu_engine_table = {{
    {alu_bits({AluOp::Bitwise}), kBothForms, AluData::Any, engine_set({Engine::Vector}), Engine::Vector,
     "a bitvec operator",
     "nki-language.md 9.1 (engines column: bitvec ops Vector), 8.3 tensor_scalar (\"bitvec ... runs on the Vector "
     "Engine only\")"},
    {alu_bits({AluOp::Power}), kBothForms, AluData::Any, engine_set({Engine::GpSimd}), Engine::GpSimd, "op power",
     "nki-language.md 9.1 (power: GpSimd), 7.3 (\"power ... on GpSimd\"), 8.3 tensor_tensor; trainium-performance.md "
     "§2 (tensor_tensor on GpSimd for power)"},
    {alu_bits({AluOp::Add, AluOp::Subtract, AluOp::Multiply}), kBothForms, AluData::Integer32,
     engine_set({Engine::GpSimd}), Engine::GpSimd, "a 32-bit integer add, subtract or multiply",
     "nki-language.md 8.3 tensor_tensor (\"32-bit integer add/subtract/multiply run on GpSimd\"), 7.3, 9.1 "
     "(\"32-bit integer add/multiply only exist on GpSimd\", of every instruction); trainium-performance.md §2 "
     "(tensor_tensor on GpSimd for int add/mul/sub)"},
    {kAnyAlu, form_bit(AluForm::TensorTensor), AluData::Any, engine_set({Engine::Vector, Engine::GpSimd}),
     Engine::Vector, "a two-tile operation",
     "nki-language.md 8.3 tensor_tensor (Vector Engine, GpSimd where noted; engine= selects), 7.3 (tile-with-tile "
     "becomes tensor_tensor on the Vector Engine); ScalarE has no two-tile ALU instruction (8.2, 8.3)"},
    {kAnyAlu, form_bit(AluForm::TensorScalar), AluData::Any,
     engine_set({Engine::Vector, Engine::Scalar, Engine::GpSimd}), Engine::Vector, "a tensor_scalar operation",
     "nki-language.md 8.3 tensor_scalar (\"Arithmetic runs on Vector, Scalar ... or GpSimd\"), 7.3 (tile-with-scalar "
     "becomes tensor_scalar, Vector)"},
}};

inline const AluEngineRow& alu_engines(AluForm form, AluOp op, bool integer32) {
  for (const AluEngineRow& r : alu_engine_table)
    if ((r.ops & alu_bits({op})) && (r.forms & form_bit(form)) && (r.data == AluData::Any || integer32)) return r;
  return alu_engine_table.back();  // not reached: the last two rows cover every operation
}

// The unary ALU operators (nki-language.md 9.1: rsqrt, reciprocal, absolute, no second operand), a
// tensor_scalar step with a dummy operand; the trace records such a step by its name (AluOp::Rsqrt,
// Reciprocal, Abs; AluOp::Other until session 26). Not listed, and why: 9.1's bitvec not and
// logical_not have no tensor_scalar form in the docs.
struct UnaryAluRow {
  tensor::UnaryOp op;
  AluEngineRow row;
};
inline constexpr std::array<UnaryAluRow, 3> unary_alu_table = {{
    // The compiler's pick for rsqrt is GpSimd, where 8.3 places it ("or GpSimd (rsqrt)") and where
    // NKI 0.5 moved nl.rsqrt (12.1).
    {tensor::UnaryOp::Rsqrt,
     {0, form_bit(AluForm::TensorScalar), AluData::Any, engine_set({Engine::GpSimd, Engine::Scalar}), Engine::GpSimd,
      "op rsqrt",
      "nki-language.md 9.1 (rsqrt: GpSimd / Scalar, \"in tensor_scalar with a dummy operand\"), 8.3 tensor_scalar "
      "(\"or GpSimd (rsqrt)\"), 12.1 (nl.rsqrt moved to GpSimd in 0.5)"}},
    {tensor::UnaryOp::Reciprocal,
     {0, form_bit(AluForm::TensorScalar), AluData::Any, engine_set({Engine::Vector, Engine::Scalar}), Engine::Vector,
      "op reciprocal", "nki-language.md 9.1 (reciprocal: Vector / Scalar)"}},
    {tensor::UnaryOp::Abs,
     {0, form_bit(AluForm::TensorScalar), AluData::Any, engine_set({Engine::Vector, Engine::Scalar}), Engine::Vector,
      "op abs", "nki-language.md 9.1 (absolute: Vector / Scalar)"}},
}};
// The row of a unary ALU operator; nullptr for the others (activation-only functions: nl.exp).
inline const AluEngineRow* unary_alu_row(tensor::UnaryOp op) {
  for (const UnaryAluRow& r : unary_alu_table)
    if (r.op == op) return &r.row;
  return nullptr;
}

// The trace's name of a unary ALU operator of the table, and back (AluOp::Other for the others).
inline AluOp alu_of(tensor::UnaryOp op) {
  switch (op) {
    case tensor::UnaryOp::Rsqrt: return AluOp::Rsqrt;
    case tensor::UnaryOp::Reciprocal: return AluOp::Reciprocal;
    case tensor::UnaryOp::Abs: return AluOp::Abs;
    default: return AluOp::Other;
  }
}
inline std::optional<tensor::UnaryOp> unary_of(AluOp op) {
  switch (op) {
    case AluOp::Rsqrt: return tensor::UnaryOp::Rsqrt;
    case AluOp::Reciprocal: return tensor::UnaryOp::Reciprocal;
    case AluOp::Abs: return tensor::UnaryOp::Abs;
    default: return std::nullopt;
  }
}

// One step of an instruction: a binary ALU operation, or a unary ALU operator (`unary` set, `op`
// then its trace name, alu_of(unary)).
struct AluStep {
  AluOp op = AluOp::Unknown;
  std::optional<tensor::UnaryOp> unary;
};

// An instruction applying several operations (tensor_scalar's op0 and op1): the engines all of
// them may run on, and the compiler's pick among those (the first operation's when it is one of
// them, else the next's). `row` is the most restrictive operation's row, for error messages.
struct AluPlacement {
  EngineSet allowed = 0;
  Engine chosen = Engine::Vector;
  const AluEngineRow* row = nullptr;
};
// The Scalar Engine runs a tensor_scalar only as (multiply, add), (multiply) or (add) (ISA
// tensor_scalar: "(multiply, add), (multiply, none), (add, none)"; trainium-performance.md 1.2):
// the arithmetic its activation datapath gives as func(data * scale + bias) with the identity.
// Add/multiply ALU ops on ScalarE are NC-v3 instructions (SHARED note); on NC-v2 the compiler has
// the same arithmetic as an identity activation with scale and bias, so one rule serves both
// generations. An operation the record does not name (Unknown, records built without one) is
// not judged.
// A unary ALU operator the table lets ScalarE run (rsqrt, reciprocal, abs: 9.1) is that
// datapath's func: alone, or after one multiply or add (func(data * scale + bias)).
inline bool scalar_engine_tensor_scalar(std::span<const AluStep> steps) {
  auto is = [](const AluStep& s, AluOp want) { return !s.unary && (s.op == want || s.op == AluOp::Unknown); };
  auto affine = [&](const AluStep& s) { return is(s, AluOp::Multiply) || is(s, AluOp::Add); };
  auto func = [](const AluStep& s) {
    const AluEngineRow* r = s.unary ? unary_alu_row(*s.unary) : nullptr;
    return r && (r->allowed & engine_bit(Engine::Scalar));
  };
  if (steps.size() == 1) return affine(steps[0]) || func(steps[0]);
  if (steps.size() == 2)
    return (is(steps[0], AluOp::Multiply) && is(steps[1], AluOp::Add)) || (affine(steps[0]) && func(steps[1]));
  return steps.empty();
}

// The row an error names when only the pair keeps ScalarE out.
inline constexpr AluEngineRow scalar_tensor_scalar_row = {
    kAnyAlu, form_bit(AluForm::TensorScalar), AluData::Any, engine_set({Engine::Vector, Engine::GpSimd}),
    Engine::Vector, "an operation other than multiply-then-add, multiply or add",
    "ISA tensor_scalar (ScalarE: (multiply, add), (multiply, none), (add, none)); trainium-performance.md 1.2"};

inline AluPlacement alu_placement(AluForm form, std::span<const AluStep> steps, bool integer32) {
  auto row_of = [&](const AluStep& s) -> const AluEngineRow& {
    const AluEngineRow* u = s.unary ? unary_alu_row(*s.unary) : nullptr;
    return u ? *u : alu_engines(form, s.op, integer32);
  };
  AluPlacement p;
  p.allowed = 0xff;
  for (const AluStep& s : steps) {
    const AluEngineRow& r = row_of(s);
    p.allowed &= r.allowed;
    if (!p.row || std::popcount(r.allowed) < std::popcount(p.row->allowed)) p.row = &r;
  }
  if (form == AluForm::TensorScalar && (p.allowed & engine_bit(Engine::Scalar)) &&
      !scalar_engine_tensor_scalar(steps)) {
    p.allowed &= EngineSet(~engine_bit(Engine::Scalar));
    if (!p.row || std::popcount(scalar_tensor_scalar_row.allowed) <= std::popcount(p.row->allowed))
      p.row = &scalar_tensor_scalar_row;
  }
  for (const AluStep& s : steps) {
    Engine c = row_of(s).chosen;
    if (p.allowed & engine_bit(c)) {
      p.chosen = c;
      break;
    }
  }
  return p;
}
// From what the trace records (the cost model's question): a unary operator's name is its step.
inline AluPlacement alu_placement(AluForm form, std::span<const AluOp> ops, bool integer32) {
  std::vector<AluStep> steps;
  for (AluOp op : ops) steps.push_back({op, unary_of(op)});
  return alu_placement(form, steps, integer32);
}
inline AluPlacement alu_placement(AluForm form, std::initializer_list<AluOp> ops, bool integer32) {
  return alu_placement(form, std::span<const AluOp>(ops.begin(), ops.size()), integer32);
}

}  // namespace trn
