// transpose_on_pe (src/loopnest/transpose_on_pe.cpp): a transposing DMA (nl.load_transpose2d) of a
// region the loop also loads plainly becomes a Tensor Engine transpose of the plain tile. The same
// nest written with slices and with index grids (tool-generated names) offers it at the same
// anchor; it keeps the result and is faster (8.654 -> 5.678 us on both, trn1). Beside a plain load
// of another region the move adds its own load; a source the kernel writes is refused.
#include <gtest/gtest.h>

#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "loopnest/arg_spec.h"

namespace agents::builtin {
namespace {

using Args = std::vector<loopnest::ArgSpec>;

std::vector<Site> sites(const std::string& source, const Args& args) {
  std::vector<Site> out;
  for (auto& s : find_sites(source, args))
    if (s.transform == "transpose_on_pe") out.push_back(s);
  return out;
}

std::string kernel(const std::string& name) { return builtin_test::read(builtin_test::golden_dir() + "/" + name); }

TEST(BuiltinTransposeOnPe, SlicesAndGridsOfferItAtOneAnchorAndKeepTheResult) {
  std::string anchor;
  for (const char* name : {"load_both_ways.py", "load_both_ways_grid.py"}) {
    std::string source = kernel(name);
    Args args = loopnest::arg_specs_from_header(source);
    auto found = sites(source, args);
    ASSERT_EQ(found.size(), 1u) << name;
    if (anchor.empty()) anchor = found[0].params.at("anchor");
    EXPECT_EQ(found[0].params.at("anchor"), anchor);
    EXPECT_EQ(found[0].relieves, std::set<std::string>{"dma"});
    std::string moved = apply_site(source, found[0], args);
    EXPECT_EQ(moved.find("load_transpose2d"), std::string::npos) << moved;
    EXPECT_NE(moved.find("nc_transpose"), std::string::npos) << moved;
    auto shapes = builtin_test::input_shapes(source);
    EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(moved, shapes), builtin_test::run_source(source, shapes)),
              1e-6)
        << moved;
  }
}

TEST(BuiltinTransposeOnPe, LoadsTheRegionItselfOrIsRefusedForAWrittenSource) {
  std::string source = kernel("load_both_ways.py");
  Args args = loopnest::arg_specs_from_header(source);
  auto variant = [](std::string s, const std::string& from, const std::string& to) {
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  // The plain load reads the other column block: nothing to transpose from, so the move loads the
  // region plainly itself (reuse=no), and keeps the result.
  std::string other = variant(source, "a_k = nl.load(a[:, k * 128:(k + 1) * 128])", "a_k = nl.load(a[:, (1 - k) * 128:(2 - k) * 128])");
  auto own = sites(other, args);
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].params.at("reuse"), "no");
  std::string loaded = apply_site(other, own[0], args);
  EXPECT_NE(loaded.find("a_t_rows = nl.load("), std::string::npos) << loaded;
  auto shapes = builtin_test::input_shapes(other);
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(loaded, shapes), builtin_test::run_source(other, shapes)), 1e-6);
  // The source is written by the kernel (through DMA into the argument): the two loads may differ.
  EXPECT_TRUE(sites(variant(source, "    nl.store(d, value=rows)\n", "    nl.store(d, value=rows)\n    nl.store(a[:, 0:128], value=rows)\n"),
                    args)
                  .empty());
  EXPECT_EQ(sites(source, args).size(), 1u);
  EXPECT_EQ(sites(source, args)[0].params.at("reuse"), "yes");
}

}  // namespace
}  // namespace agents::builtin
