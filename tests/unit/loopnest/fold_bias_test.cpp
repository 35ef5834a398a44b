// fold_bias (src/loopnest/fold.cpp) and fold_activation_reduce (reduce.cpp) on a softmax written
// with named values and nl.* math: the two moves that make it the instructions the bundled kernels
// spell by hand.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

namespace {

// The first site of `transform` in `text`, applied; "" when there is none.
std::string apply_first(const std::string& path, const std::string& text, const std::vector<loopnest::ArgSpec>& args,
                        const std::string& transform) {
  auto form = loopnest::lift_source(path, text, args);
  for (const auto& s : loopnest::find_sites(form))
    if (s.transform == transform) return loopnest::apply_site(path, text, args, s);
  return "";
}

// A softmax written with named values (tests/kernels/softmax_named_rows.py): fold_bias makes
// exp(t - m) one activation biased by -m, and then fold_activation_reduce, on a named result,
// lets it sum the rows. That each site keeps the result is EverySiteOfTheTestKernelsKeepsTheirResult's.
TEST(FoldBias, NamedSoftmaxBecomesOneBiasedActivationThatSumsItsRows) {
  const std::vector<loopnest::ArgSpec> args = arrays({{256, 512}});
  std::string path = source_dir() + "/tests/kernels/softmax_named_rows.py";
  std::string biased = apply_first(path, read(path), args, "fold_bias");
  EXPECT_NE(biased.find("e = nisa.activation(op=nl.exp, data=t, bias=nl.multiply(x=m, y=-1.0))"), std::string::npos) << biased;
  EXPECT_EQ(biased.substr(biased.find("def kernel")).find("nl.subtract"), std::string::npos) << biased;
  std::string summed = apply_first(path, biased, args, "fold_activation_reduce");
  EXPECT_NE(summed.find("e = nisa.activation_reduce(op=nl.exp, data=t, bias=nl.multiply(x=m, y=-1.0), reduce_op=nl.add, reduce_res=s)"),
            std::string::npos) << summed;
  EXPECT_EQ(summed.substr(summed.find("def kernel")).find("nl.sum("), std::string::npos) << summed;
}

// Not offered where the difference is read by anything but the activation, nor for a subtraction
// of something other than a per-row column.
TEST(FoldBias, OnlyADifferenceReadByTheActivationAloneFolds) {
  const std::vector<loopnest::ArgSpec> args = arrays({{256, 512}});
  auto kernel = [](const std::string& body) {
    return "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\ndef kernel(x):\n"
           "    out = nl.ndarray((256, 512), dtype=x.dtype, buffer=nl.shared_hbm)\n"
           "    for i in nl.affine_range(2):\n        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
           "        m = nl.max(t, axis=1, keepdims=True)\n" + body + "    return out\n";
  };
  std::string store = "        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(e, d))\n";
  const std::string diff = "        d = nl.subtract(t, m)\n        e = nl.exp(d)\n";
  EXPECT_NE(apply_first("f.py", kernel(diff + "        nl.store(out[i * 128:(i + 1) * 128, :], value=e)\n"), args, "fold_bias"), "");
  EXPECT_EQ(apply_first("f.py", kernel(diff + store), args, "fold_bias"), "");
  EXPECT_EQ(apply_first("f.py", kernel("        d = nl.subtract(t, t)\n        e = nl.exp(d)\n" + store), args, "fold_bias"), "");
}

// A unary ALU step (tensor_scalar op0=nl.rsqrt with a dummy operand, nki-language.md 9.1) is no
// `data op operand` step: folding it into a scalar_tensor_tensor (x * rsqrt(d)) would print an
// instruction that takes binary operators only, and no fold is offered for it.
TEST(FoldBias, AUnaryAluStepIsNotFolded) {
  const std::vector<loopnest::ArgSpec> args = arrays({{256, 512}});
  std::string path = source_dir() + "/tests/kernels/corpus/new_unary_alu_steps.py";
  auto form = loopnest::lift_source(path, read(path), args);
  for (const auto& s : loopnest::find_sites(form)) EXPECT_NE(s.transform.rfind("fold_", 0), 0u) << s.transform;
}

}  // namespace

namespace {

// fold_scale takes a per-row float32 column (`x * a[:, j]`) as the activation's scale, spelled as a
// tensor_scalar or as an nl.* product with the column on either side; an activation with a scale of
// its own keeps the product (a number times a column is another instruction), and the number chain
// folds as before (tests/kernels/scaled_exp_rows.py). EverySiteOfTheTestKernelsKeepsTheirResult runs
// every site for its numbers.
TEST(FoldScale, APerRowColumnBecomesTheActivationsScale) {
  const std::vector<loopnest::ArgSpec> args = arrays({{256, 512}, {256, 4}});
  std::string path = source_dir() + "/tests/kernels/scaled_exp_rows.py";
  std::string text = read(path);
  auto form = loopnest::lift_source(path, text, args);
  std::vector<std::string> summaries;
  for (const auto& s : loopnest::find_sites(form))
    if (s.transform == "fold_scale") summaries.push_back(s.summary);
  ASSERT_EQ(summaries.size(), 3u) << ::testing::PrintToString(summaries);
  std::string after = text;
  for (int n = 0; n < 3; ++n) after = apply_first(path, after, args, "fold_scale");
  EXPECT_NE(after.find("e0 = nisa.activation(op=nl.exp, data=t, scale=a_t[:, 0:1])"), std::string::npos) << after;
  EXPECT_NE(after.find("nisa.activation(op=nl.exp, data=t, scale=a_t[:, 1:2])"), std::string::npos) << after;
  EXPECT_NE(after.find("d2 = nl.multiply(t, a_t[:, 2:3])"), std::string::npos) << after;
  EXPECT_NE(after.find("nisa.activation(op=nl.exp, data=t, scale=0.25)"), std::string::npos) << after;
  EXPECT_EQ(apply_first(path, after, args, "fold_scale"), "");
}

}  // namespace

namespace {

// A library author guards the ragged last row tile with the same mask on every instruction
// (tests/kernels/masked_softmax_rows.py, 192 rows). The mask does not stop the folds: every element
// the folded instruction computes (the consumer's mask, which it keeps) is one the producer
// computed. Before session 23 any mask refused fold_bias and fold_activation_reduce. The result is
// EverySiteOfTheTestKernelsKeepsTheirResult's.
TEST(FoldBias, TheSameMaskOnBothInstructionsFoldsAndIsKept) {
  const std::vector<loopnest::ArgSpec> args = arrays({{192, 512}});
  std::string path = source_dir() + "/tests/kernels/masked_softmax_rows.py";
  std::string text = read(path);
  std::string biased = apply_first(path, text, args, "fold_bias");
  EXPECT_NE(biased.find("e = nisa.activation(op=nl.exp, data=xt, bias=neg_max, mask=ok)"), std::string::npos) << biased;
  std::string summed = apply_first(path, text, args, "fold_activation_reduce");
  EXPECT_NE(summed.find("e = nisa.activation_reduce(op=nl.exp, data=shifted, mask=ok, reduce_op=nl.add, reduce_res=total)"),
            std::string::npos) << summed;
  // The activation unmasked: it would compute (and sum) rows the masked producer left unwritten.
  std::string unmasked = text;
  const std::string act = "e = nisa.activation(op=nl.exp, data=shifted, mask=ok)";
  ASSERT_NE(unmasked.find(act), std::string::npos);
  unmasked.replace(unmasked.find(act), act.size(), "e = nisa.activation(op=nl.exp, data=shifted)");
  EXPECT_EQ(apply_first(path, unmasked, args, "fold_bias"), "");
  EXPECT_EQ(apply_first(path, unmasked, args, "fold_activation_reduce"), "");
}

}  // namespace
