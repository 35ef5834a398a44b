#include "loopnest/alu_engine.h"

#include "loopnest/analysis.h"
#include "loopnest/api.h"
#include "loopnest/transform.h"
#include "nki/lib/alu_ops.h"
#include "tensor/dtype.h"

namespace loopnest {

namespace {

// "add", "nl.add", "np.add" -> the trace's operation; nullopt when no binary ALU operator (nor,
// in a tensor_scalar step, a unary ALU one: rsqrt, reciprocal, abs).
std::optional<trn::AluStep> alu_named(const std::string& symbol, trn::AluForm form) {
  const nki::lib::AluOp* alu = nki::lib::find_alu_op(operator_symbol(symbol));
  if (!alu) return std::nullopt;
  if (alu->binary) return trn::AluStep{trn::alu_of(*alu->binary), std::nullopt};
  if (form == trn::AluForm::TensorScalar && alu->unary && trn::unary_alu_row(*alu->unary))
    return nki::lib::step_alu(*alu);
  return std::nullopt;
}

std::string written_dtype(const Kernel& k, const Op& op) {
  if (!op.dtype.empty()) return op.dtype;
  if (op.result >= 0) return k.tensor(op.result).dtype;
  if (op.dst) return k.tensor(op.dst->tensor).dtype;
  return "";
}

}  // namespace

trn::Engine to_trn(Engine e) {
  switch (e) {
    case Engine::Tensor: return trn::Engine::Tensor;
    case Engine::Scalar: return trn::Engine::Scalar;
    case Engine::GpSimd: return trn::Engine::GpSimd;
    case Engine::Dma: return trn::Engine::Dma;
    default: return trn::Engine::Vector;
  }
}

Engine from_trn(trn::Engine e) {
  switch (e) {
    case trn::Engine::Tensor: return Engine::Tensor;
    case trn::Engine::Scalar: return Engine::Scalar;
    case trn::Engine::GpSimd: return Engine::GpSimd;
    case trn::Engine::Dma: return Engine::Dma;
    default: return Engine::Vector;
  }
}

std::optional<AluUse> alu_use(const Kernel& k, const Op& op, const std::string& result_dtype) {
  AluUse use;
  std::vector<std::string> names;
  if (op.api == "nisa.tensor_tensor") {
    use.form = trn::AluForm::TensorTensor;
    names = {symbol_of(op, "op")};
  } else if (op.api == "nisa.tensor_scalar") {
    use.form = trn::AluForm::TensorScalar;
    names = {symbol_of(op, "op0")};
    if (std::string op1 = symbol_of(op, "op1"); !op1.empty()) names.push_back(op1);
  } else if (is_binary_language_op(op.api)) {
    const Arg *x = op.arg("x"), *y = op.arg("y");
    if (!x || !y) return std::nullopt;
    use.form = tensor_scalar_form(x->value, y->value) ? trn::AluForm::TensorScalar : trn::AluForm::TensorTensor;
    names = {op.api};
  } else {
    return std::nullopt;
  }
  for (const auto& n : names) {
    auto alu = alu_named(n, use.form);
    if (!alu) return std::nullopt;
    use.ops.push_back(*alu);
  }
  auto dtype = tensor::parse_dtype(result_dtype.empty() ? written_dtype(k, op) : result_dtype);
  use.integer32 = dtype && trn::is_integer32(*dtype);
  return use;
}

Engine default_engine(const Kernel& k, const Op& op, const std::string& result_dtype) {
  if (auto use = alu_use(k, op, result_dtype)) return from_trn(use->placement().chosen);
  const ApiSpec* spec = find_api(op.api);
  return spec ? spec->engine : Engine::None;
}

bool alu_may_run_on(const Kernel& k, const Op& op, Engine e) {
  auto use = alu_use(k, op);
  return !use || (use->placement().allowed & trn::engine_bit(to_trn(e)));
}

}  // namespace loopnest
