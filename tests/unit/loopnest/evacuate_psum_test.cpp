// evacuate_psum (src/loopnest/evacuate_psum.cpp): a Tensor Engine result left in PSUM and read by
// the Tensor Engine (a comprehension of transposes read by every column block's matmuls) is copied
// to SBUF where it is made; the edit is the call wrapped in `nl.copy(...)`, nothing else; the result
// offers the site no more, and a transposed tile already copied offers none.
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

std::vector<loopnest::Site> evacuations(const std::string& path, const std::string& text,
                                        const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "evacuate_psum") out.push_back(s);
  return out;
}

TEST(EvacuatePsum, ATransposeListReadByMatmulsIsCopiedToSbufWhereItIsMade) {
  const std::string path = source_dir() + "/tests/kernels/psum_operand_rows_api.py";
  const std::string text = read(path);
  const auto args = arrays({{2, 128, 2, 128}, {2, 128, 1024}});
  auto sites = evacuations(path, text, args);
  ASSERT_EQ(sites.size(), 1u);
  std::string after = loopnest::apply_site(path, text, args, sites[0]);
  std::string want = text;
  const std::string call = "nl.transpose(nl.load(lhs[m, :, k, :]))";
  want.replace(want.find(call), call.size(), "nl.copy(" + call + ")");
  EXPECT_EQ(after, want);
  EXPECT_TRUE(evacuations(path, after, args).empty()) << after;
  // The transposed tiles now live in SBUF: no PSUM tensor but the accumulator and the copies' sources.
  loopnest::Kernel k = loopnest::lift_source(path, after, args);
  for (const auto& t : k.tensors)
    if (t.name == "lhs_t" || t.name.rfind("lhs_t", 0) == 0) EXPECT_NE(t.memory, loopnest::Memory::Psum) << t.name;
}

}  // namespace
