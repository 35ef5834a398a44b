// What the folds (fold.cpp, reduce.cpp, scale_through_reduce.cpp, fold_rows.cpp) must keep or
// refuse on in the instructions they merge: an integer tile between two steps (a quantization the
// folded fp32 instruction would skip), a tile written again or a name bound again between a step
// and its reader, an activation's reduce_res under fold_rows; and masks, which they carry. Each kernel's every site keeps its result (EverySiteOfTheTestKernelsKeepsTheirResult);
// here: the sites that would not are not offered, and their float / same-mask twins still are.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/lift.h"
#include "loopnest/scalar_step.h"
#include "loopnest/transform.h"

using loopnest_test::read;
using loopnest_test::source_dir;
using loopnest_test::test_kernel_args;

namespace {

// The 1-based line of the first line of `text` holding `snippet` ("" when none: the test fails).
std::string line_of(const std::string& text, const std::string& snippet) {
  size_t at = text.find(snippet);
  EXPECT_NE(at, std::string::npos) << snippet;
  if (at == std::string::npos) return "";
  return std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

// (transform, line) of every site of the test kernel `name` (tests/kernels/).
std::set<std::pair<std::string, std::string>> sites(const std::string& name, std::string* text_out = nullptr) {
  std::string path = source_dir() + "/tests/kernels/" + name;
  std::string text = read(path);
  if (text_out) *text_out = text;
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, test_kernel_args().at(name))))
    out.insert({s.transform, std::to_string(s.line)});
  return out;
}

// nl.multiply(t, 8.0, dtype=nl.int32) then * 0.125 is round-toward-zero(8 t) / 8; one tensor_scalar
// computes t. The folds printed kernels whose outputs differ from the author's (by up to 1 / 8 per
// element here; a wasted evaluation each). The float32 chains still fold.
TEST(FoldAttrs, AnIntegerTileBetweenTwoStepsIsNotFoldedAway) {
  std::string text;
  auto got = sites("fold_integer_steps.py", &text);
  for (const auto& [transform, snippet] : std::vector<std::pair<std::string, std::string>>{
           {"fold_scalar_ops", "q0 = nl.multiply"}, {"fold_scale", "q1 = nl.multiply"},
           {"fold_scalar_tensor_tensor", "q2 = nl.multiply"}, {"fold_reciprocal", "r = nl.reciprocal"},
           {"fold_bias", "s = nl.subtract"}, {"fold_activation_reduce", "ei = nisa.activation"}})
    EXPECT_FALSE(got.count({transform, line_of(text, snippet)})) << transform << " at " << snippet;
  EXPECT_TRUE(got.count({"fold_scalar_ops", line_of(text, "g = nl.multiply")}));
  EXPECT_TRUE(got.count({"fold_scale", line_of(text, "h = nisa.activation")}));
  // The newer API's int32 buffer between two tensor_scalar steps.
  auto api = sites("fold_attrs_api.py", &text);
  EXPECT_FALSE(api.count({"fold_scalar_ops", line_of(text, "nisa.tensor_scalar(dst=q,")}));
}

// keeps_its_value on the lifted form: false for exactly the steps writing an integer tile (the
// quantizations, the int32 exp and its row sum), true for every float one.
TEST(FoldAttrs, KeepsItsValueReadsTheTilesDtype) {
  std::string path = source_dir() + "/tests/kernels/fold_integer_steps.py";
  auto form = loopnest::lift_source(path, read(path), test_kernel_args().at("fold_integer_steps.py"));
  std::set<std::string> truncated;
  loopnest::for_each_node(form.body, [&](const loopnest::Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      if (!op.dst) continue;
      const loopnest::Tensor& t = form.tensor(loopnest::storage_of(form, op.dst->tensor));
      const bool integer = t.dtype == "int32";
      EXPECT_EQ(loopnest::keeps_its_value(form, op), !integer) << op.api << " " << t.name;
      if (integer) truncated.insert(t.name);
    }
  });
  EXPECT_EQ(truncated, (std::set<std::string>{"q0", "q1", "q2", "r", "s", "ei", "si"}));
}

// A masked step folds into its reader with the reader's mask, whether the reader has the step's
// mask (the library style) or none: the rows the step never wrote are undefined in both kernels
// and stored by neither (EverySiteOfTheTestKernelsKeepsTheirResult runs every site).
TEST(FoldAttrs, AMaskedStepFoldsWithItsReadersMask) {
  std::string text;
  auto got = sites("fold_masked_steps.py", &text);
  EXPECT_TRUE(got.count({"fold_scale", line_of(text, "b = nisa.activation")}));
  EXPECT_TRUE(got.count({"fold_scalar_ops", line_of(text, "a = nl.add(nl.multiply")}));
  EXPECT_TRUE(got.count({"fold_scalar_tensor_tensor", line_of(text, "c = nl.subtract")}));
  EXPECT_TRUE(got.count({"fold_silu", line_of(text, "en = nisa.activation")}));
  EXPECT_TRUE(got.count({"fold_scale", line_of(text, "u = nl.exp")}));
}

// The folded instruction reads the step's data where the reader was: a tile updated in place
// between the two (newer API) made fold_scale print exp(2 (t + 1)) for exp(2 t); a name bound
// again between them made the printed kernel read the later binding (the print-back check refused
// those two sites after they were listed).
TEST(FoldAttrs, AStepWhoseDataChangesBeforeItsReaderIsNotFolded) {
  std::string text;
  auto api = sites("fold_attrs_api.py", &text);
  EXPECT_FALSE(api.count({"fold_scale", line_of(text, "nisa.tensor_scalar(dst=h2,")}));
  EXPECT_TRUE(api.count({"fold_scale", line_of(text, "nisa.tensor_scalar(dst=h,")}));
  std::string path = source_dir() + "/tests/golden/rewrite/fold_attrs.py";
  text = read(path);
  std::set<std::pair<std::string, std::string>> got;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, loopnest::arg_specs_from_header(text))))
    got.insert({s.transform, std::to_string(s.line)});
  EXPECT_FALSE(got.count({"fold_scalar_ops", line_of(text, "step = nisa.tensor_scalar")}));
  EXPECT_FALSE(got.count({"fold_scale", line_of(text, "scaled = nisa.tensor_scalar")}));
  EXPECT_TRUE(got.count({"fold_scale", line_of(text, "half = nisa.tensor_scalar")}));
}

// An activation that sums its rows into a [P, 1] reduce_res is no elementwise instruction: folded
// onto twice the partitions, each half row was summed apart (the row sums halved, silently).
TEST(FoldRows, AnActivationSummingItsRowsIsNotFolded) {
  auto got = sites("fold_rows_reduce_res.py");
  for (const auto& [transform, line] : got) EXPECT_NE(transform, "fold_rows") << line;
}

// One "not an ISA operator" flag of nki::lib's ALU table (nki-language.md 9.1): divide, and the
// remainders the table has no row for; every other operator, and names it does not know, may be
// printed as an instruction's op.
TEST(ScalarStep, IsaOperatorsAreTheTablesOwn) {
  for (const char* op : {"divide", "true_divide", "mod", "remainder", "fmod", "nl.divide", "np.fmod"})
    EXPECT_FALSE(loopnest::isa_operator(op)) << op;
  for (const char* op : {"add", "subtract", "multiply", "maximum", "power", "reciprocal", "bitwise_and", "less_equal"})
    EXPECT_TRUE(loopnest::isa_operator(op)) << op;
}

}  // namespace

// A step updating in place what an activation wrote fresh in the same iteration folds into its
// reader (an outside author's adamw, `den` then `dst=den, data=den` then a reciprocal: 2.108 ->
// 1.664 ms once folded); a buffer whose in-place update carries across iterations, or whose updated
// value another op reads, does not. Every site keeps the kernel's result.
TEST(FoldAttrs, AnInPlaceUpdateOfAFreshTileFoldsIntoItsReader) {
  std::string path = source_dir() + "/tests/kernels/fold_in_place_chain_api.py";
  std::string text = read(path);
  auto args = loopnest::arg_specs_from_header(text);
  std::set<std::pair<std::string, std::string>> got;
  for (const auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    got.insert({s.transform, std::to_string(s.line)});
  EXPECT_TRUE(got.count({"fold_scalar_ops", line_of(text, "nisa.tensor_scalar(dst=den, data=den, op0=nl.add, operand0=1e-3)")}));
  EXPECT_FALSE(got.count({"fold_scalar_ops", line_of(text, "nisa.tensor_scalar(dst=decay,")}));
  EXPECT_FALSE(got.count({"fold_scalar_ops", line_of(text, "nisa.tensor_scalar(dst=seen,")}));
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result(path, text, args), 0u);
}
