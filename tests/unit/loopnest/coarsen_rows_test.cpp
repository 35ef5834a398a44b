// tile_size on row blocks (src/loopnest/coarsen.cpp, rows=1): a loop over 64-row blocks coarsens
// onto 128 partitions with what its tiles carry (an accumulator declared in the loop, a broadcast,
// a transpose's output); and a loop whose body updates state kept across its iterations is never
// coarsened (the update would run half as often). The printed kernels are GoldenRewrites'
// (half_row_*.tile_size_rows); that every site keeps the result, EverySiteOfTheTestKernelsKeepsTheirResult's.
#include <sstream>

#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

std::vector<loopnest::Site> tile_size_sites(const std::string& path, const std::string& text,
                                            const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source(path, text, args)))
    if (s.transform == "tile_size") out.push_back(s);
  return out;
}

// The lines of `b` that are not the same line of `a` (texts of as many lines), with their numbers.
std::vector<std::string> changed_lines(const std::string& a, const std::string& b) {
  std::vector<std::string> la, lb, out;
  for (auto* p : {&a, &b}) {
    std::stringstream in(*p);
    auto& v = p == &a ? la : lb;
    for (std::string l; std::getline(in, l);) v.push_back(l);
  }
  if (la.size() != lb.size()) return {"<" + std::to_string(la.size()) + " vs " + std::to_string(lb.size()) + " lines>"};
  for (size_t i = 0; i < la.size(); ++i)
    if (la[i] != lb[i]) out.push_back(std::to_string(i + 1) + ": " + lb[i]);
  return out;
}

const loopnest::Site* rows_site(const std::vector<loopnest::Site>& sites) {
  for (const auto& s : sites)
    if (s.params.count("rows")) return &s;
  return nullptr;
}

TEST(CoarsenRows, HalfRowBlocksGrowOntoEveryPartition) {
  // The block size is the author's `ROWS = 64`: the move prints as that one line edited (the loop's
  // trips, the rows' ds, the accumulator and the broadcast all follow it), checked to lift to the
  // coarsened form.
  const std::string path = source_dir() + "/tests/kernels/half_row_blocks.py";
  const std::string text = read(path);
  const auto args = arrays({{256, 512}, {256, 4}, {4, 512}});
  auto sites = tile_size_sites(path, text, args);
  const loopnest::Site* rows = rows_site(sites);
  ASSERT_TRUE(rows);
  std::string after = loopnest::apply_site(path, text, args, *rows);
  EXPECT_EQ(changed_lines(text, after), std::vector<std::string>{"10: ROWS = 128"}) << after;
}

TEST(CoarsenRows, ALiteralBlockSizePrintsInTheAuthorsSpellingWithoutWhatItLeftUnread) {
  // The same kernel with the size written as numbers: the rows keep the author's `nl.ds(start,
  // size)` at the new size, the free dims the author's names (`C`), and `first = blk * 64` goes
  // (nothing reads it any more) while `spare`, which the input already left unread, stays.
  const std::string path = source_dir() + "/tests/kernels/half_row_blocks.py";
  std::string text = read(path);
  for (std::string::size_type at; (at = text.find("ROWS", text.find("def kernel"))) != std::string::npos;)
    text.replace(at, 4, "64");
  text.replace(text.find("    S = a.shape[1]"), 0, "    spare = 3\n");
  const auto args = arrays({{256, 512}, {256, 4}, {4, 512}});
  auto sites = tile_size_sites(path, text, args);
  const loopnest::Site* rows = rows_site(sites);
  ASSERT_TRUE(rows);
  std::string after = loopnest::apply_site(path, text, args, *rows);
  EXPECT_NE(after.find("x_t = nl.load(x[nl.ds(128*blk, 128), :])"), std::string::npos) << after;
  EXPECT_NE(after.find("nl.store(out[nl.ds(128*blk, 128), :], value=total)"), std::string::npos) << after;
  EXPECT_NE(after.find("nl.zeros((128, C)"), std::string::npos) << after;
  EXPECT_EQ(after.find("first ="), std::string::npos) << after;
  EXPECT_NE(after.find("spare = 3"), std::string::npos) << after;
}

TEST(CoarsenRows, TheSplitHalvesLeaveNoLoopOfOneIteration) {
  // The query blocks split into tiles and halves, the halves coarsened onto 128 partitions: the
  // loop of one half is gone and the tiles' loop is the query loop again (`qb`).
  const std::string path = source_dir() + "/tests/kernels/half_row_attention.py";
  const std::string text = read(path);
  const auto args = arrays({{2, 128, 64}, {128, 64}, {128, 64}});
  auto sites = tile_size_sites(path, text, args);
  const loopnest::Site* rows = rows_site(sites);
  ASSERT_TRUE(rows);
  std::string after = loopnest::apply_site(path, text, args, *rows);
  EXPECT_EQ(after.find("affine_range(1)"), std::string::npos) << after;
  EXPECT_NE(after.find("for qb in nl.affine_range(2):"), std::string::npos) << after;
  EXPECT_NE(after.find("q_t = nl.load(q[qb, :, :])"), std::string::npos) << after;
}

TEST(CoarsenRows, RowsAlreadyOnEveryPartitionOfferNoRowsSite) {
  // The same kernel with 128-row blocks: nothing to fill.
  const std::string path = source_dir() + "/tests/kernels/half_row_blocks.py";
  std::string text = read(path);
  text.replace(text.find("ROWS = 64"), 9, "ROWS = 128");
  for (const auto& s : tile_size_sites(path, text, arrays({{256, 512}, {256, 4}, {4, 512}})))
    EXPECT_FALSE(s.params.count("rows")) << s.key();
}

TEST(Coarsen, AnUpdateOfStateFromBeforeTheLoopKeepsTheLoop) {
  // `scale` doubles every iteration: coarsened by 2 it would double half as often.
  const std::string text = R"(import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    scale = nl.full((128, 1), 1.0, dtype=nl.float32)
    for j in nl.sequential_range(4):
        scale[...] = nl.multiply(scale, 2.0)
        t = nl.load(x[:, j * 256:(j + 1) * 256])
        nl.store(out[:, j * 256:(j + 1) * 256], value=nl.multiply(t, scale))
    return out
)";
  EXPECT_TRUE(tile_size_sites("state_update.py", text, arrays({{128, 1024}})).empty());
}

}  // namespace
