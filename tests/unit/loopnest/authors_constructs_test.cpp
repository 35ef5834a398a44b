// Constructs of other authors' kernels that the lifter refused or got wrong until session 9 (the
// p9_ kernels of tests/kernels/corpus/, docs/language.md "Kernels by idiom"): host tuples sliced
// as Python slices them, tile slices walking a dim backwards, names imported from nki.language,
// an append of an operation's result, and the accesses a backward term reaches (the in-place move
// must not write over a tile still read later).
#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

const char* const kHead = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n\n@nki.jit\n";

std::string lift_dump(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  return loopnest::dump(loopnest::lift_source("k.py", text, args));
}

bool offers(const loopnest::Kernel& form, const std::string& transform) {
  for (const auto& s : loopnest::find_sites(form))
    if (s.transform == transform) return true;
  return false;
}

TEST(LoopNestLift, HostTuplesAreSlicedAsPythonSlicesThem) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    R, C = x.shape[::-1][::-1]\n"
                     "    (last,) = x.shape[-1:]\n"
                     "    rows = x.shape[:1][0]\n"
                     "    none = x.shape[5:]\n"
                     "    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for i in nl.affine_range(rows // 128 + len(none)):\n"
                     "        t = nl.load(x[i * 128:(i + 1) * 128, 0:last])\n"
                     "        nl.store(out[i * 128:(i + 1) * 128, :], value=t)\n"
                     "    return out\n";
  std::string dump = lift_dump(text, arrays({{256, 512}}));
  EXPECT_NE(dump.find("for i in affine_range(2):"), std::string::npos) << dump;
  EXPECT_NE(dump.find("x[128*i + a0[128], a1[512]]"), std::string::npos) << dump;
}

TEST(LoopNestLift, BackwardSlicesWalkTheDimDownAndPrintBack) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    t = nl.load(x)\n"
                     "    e = nl.exp(t[:, ::-1])\n"
                     "    f = nl.add(e[:, 0:50], t[:, 200:100:-2])\n"
                     "    nl.store(out[:, ::-1], value=e)\n"
                     "    nl.store(out[:, 0:50], value=f)\n"
                     "    return out\n";
  auto args = arrays({{128, 256}});
  loopnest::Kernel form = loopnest::lift_source("k.py", text, args);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("t[a0[128], 255 + -1*a1[256]]"), std::string::npos) << dump;
  EXPECT_NE(dump.find("t[a0[128], 200 + -2*a1[50]]"), std::string::npos) << dump;
  EXPECT_NE(dump.find("out[a0[128], 255 + -1*a1[256]]"), std::string::npos) << dump;
  // Printed from the form, the stop past index 0 is left out (-1 would count from the end).
  std::string printed = loopnest::emit_checked(form, args, {.regenerate = true});
  EXPECT_NE(printed.find("t[:, 255::-1]"), std::string::npos) << printed;
  EXPECT_NE(printed.find("t[:, 200:101:-2]"), std::string::npos) << printed;
}

TEST(LoopNestLift, ABackwardSliceItCannotPlaceIsRefused) {
  std::string text = std::string(kHead) +
                     "def kernel(x, n):\n"
                     "    out = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    t = nl.load(x)\n"
                     "    nl.store(out[:, 0:10], value=nl.exp(t[:, n:n - 10:-1]))\n"
                     "    return out\n";
  loopnest::ArgSpec n;
  n.is_array = false;
  n.dtype = "int";
  n.scalar = 20;
  auto args = arrays({{128, 256}});
  args.push_back(n);
  try {
    loopnest::lift_source("k.py", text, args);
  } catch (const loopnest::LiftError& e) {
    // n is a number of this call: the slice lifts; nothing to refuse.
    FAIL() << e.render();
  }
  std::string zero = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    t = nl.load(x)\n"
                     "    nl.store(out[:, 0:10], value=nl.exp(t[:, 5:5:-1]))\n"
                     "    return out\n";
  EXPECT_THROW(loopnest::lift_source("k.py", zero, arrays({{128, 256}})), loopnest::LiftError);
}

TEST(LoopNestLift, NamesImportedFromTheLanguageModule) {
  std::string path = source_dir() + "/tests/kernels/corpus/p9_transpose_matmul_from_imports.py";
  std::string text = read(path);
  auto args = arrays({{256, 256}, {256, 1024}});
  std::string dump = loopnest::dump(loopnest::lift_source(path, text, args));
  // tile_size.pmax / gemm_moving_fmax read through the imported name, mgrid imported by name.
  EXPECT_NE(dump.find("at = nl.load(src=a[128*k + a0[128], 128*m + a1[128]])"), std::string::npos) << dump;
  EXPECT_NE(dump.find("bt = nl.load(src=b[128*k + a0[128], 512*n + a1[512]])"), std::string::npos) << dump;
  EXPECT_NE(dump.find("tensor acc: psum float32[128, 512]"), std::string::npos) << dump;
}

// `from ... import shared_hbm` then `buffer=shared_hbm`: the output is the HBM output. Read as a
// function, the buffer was taken for SBUF and chunk_rows printed `out` as a (256, 512) tensor
// stored by whole rows (wrong numbers); a buffer the lift does not know is now refused.
TEST(LoopNestLift, ABufferImportedByNameIsThatBuffer) {
  std::string path = source_dir() + "/tests/kernels/corpus/p9_silu_alias_slices.py";
  std::string text = read(path);
  auto args = arrays({{256, 1024}});
  std::string dump = loopnest::dump(loopnest::lift_source(path, text, args));
  EXPECT_NE(dump.find("tensor out: hbm float32[256, 1024] output"), std::string::npos) << dump;
  std::string unknown = std::string(kHead) +
                        "def kernel(x):\n"
                        "    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                        "    t = nl.ndarray((128, 64), dtype=x.dtype, buffer=x)\n"
                        "    return out\n";
  EXPECT_THROW(loopnest::lift_source("k.py", unknown, arrays({{128, 64}})), loopnest::LiftError);
}

TEST(LoopNestLift, AnAppendOfAnOperationsResult) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    blocks = []\n"
                     "    for k in nl.affine_range(4):\n"
                     "        blocks.append(nl.load(x[:, k * 128:(k + 1) * 128]))\n"
                     "    for k in nl.affine_range(4):\n"
                     "        nl.store(out[:, k * 128:(k + 1) * 128], value=nl.exp(blocks[k]))\n"
                     "    return out\n";
  auto args = arrays({{128, 512}});
  loopnest::Kernel form = loopnest::lift_source("k.py", text, args);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("tensor blocks_item: sbuf float32[4 | 128, 128] value list 'blocks' over k"), std::string::npos)
      << dump;
  EXPECT_NE(dump.find("blocks_item = nl.load(src=x[a0[128], 128*k + a1[128]])"), std::string::npos) << dump;
  EXPECT_EQ(loopnest::emit(form), text);
  // Printed from the form, the result still goes into the list (not `blocks_item = ...`).
  std::string printed = loopnest::emit_checked(form, args, {.regenerate = true});
  EXPECT_NE(printed.find("blocks.append(nl.load(x[:, 128*k:128*k + 128]))"), std::string::npos) << printed;
  // Anything but an operation's whole result still has no tile of its own to hold.
  std::string view = text;
  view.replace(view.find("blocks.append(nl.load(x[:, k * 128:(k + 1) * 128]))"), 52,
               "blocks.append(nl.load(x[:, k * 128:(k + 1) * 128])[:, 0:64])");
  EXPECT_THROW(loopnest::lift_source("k.py", view, args), loopnest::LiftError);
}

// `cols = []` then several appends in one iteration: a Python list the trace fills, its items the
// values appended (read later by `for i, c in enumerate(cols)`), printed back into the list.
TEST(LoopNestLift, AListFilledSeveralTimesInOneIterationHoldsItsValues) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    x.assert_shape((256, 512))\n"
                     "    assert x.ndim == 2 and x.itemsize == 4\n"
                     "    out = nl.ndarray((256, 2), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    for r in nl.affine_range(2):\n"
                     "        t = nl.load(x[r * 128:(r + 1) * 128, :])\n"
                     "        cols = []\n"
                     "        cols.append(nl.sum(nl.mod(t, 0.75), axis=1, keepdims=True))\n"
                     "        cols.append(nl.max(t, axis=1, keepdims=True))\n"
                     "        res = nl.ndarray((128, 2), dtype=nl.float32, buffer=nl.sbuf)\n"
                     "        for i, c in enumerate(cols):\n"
                     "            res[:, i:i + 1] = c\n"
                     "        nl.store(out[r * 128:(r + 1) * 128, :], value=res)\n"
                     "    return out\n";
  auto args = arrays({{256, 512}});
  loopnest::Kernel form = loopnest::lift_source("k.py", text, args);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("nl.mod(x=t, y=0.75)"), std::string::npos) << dump;
  EXPECT_NE(dump.find("res[a0[128], 1 + a1[1]] = assign(src=%"), std::string::npos) << dump;
  std::string printed = loopnest::emit_checked(form, args, {.regenerate = true});
  EXPECT_NE(printed.find("cols.append(nl.max(t, axis=1, keepdims=True))"), std::string::npos) << printed;
  // A shape that is not the asserted one stops the kernel, as the check does at trace time.
  EXPECT_THROW(loopnest::lift_source("k.py", text, arrays({{128, 512}})), loopnest::LiftError);
  // Appended under a condition on the loop variable, the list's items differ by iteration: refused.
  std::string cond = text;
  cond.replace(cond.find("        cols.append(nl.max("), 8, "        if r == 0:\n            ");
  EXPECT_THROW(loopnest::lift_source("k.py", cond, args), loopnest::LiftError) << cond;
}

// `sum(blocks)` of tiles as Python runs it (0 + t0 + t1 ...), over a list filled one tile per
// iteration of a loop and iterated after it: its blocks, in order. (A generator computing tiles,
// `sum(nl.exp(b) for b in blocks)`, is still refused as a comprehension computing tiles.)
TEST(LoopNestLift, TheBuiltinSumOfTilesOfAListFilledByALoop) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    blocks = []\n"
                     "    for k in nl.affine_range(3):\n"
                     "        t = nl.load(x[:, k * 128:(k + 1) * 128])\n"
                     "        blocks.append(t)\n"
                     "    total = nl.exp(sum(blocks))\n"
                     "    nl.store(out, value=total)\n"
                     "    return out\n";
  auto args = arrays({{128, 384}});
  loopnest::Kernel form = loopnest::lift_source("k.py", text, args);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("nl.add(x=0, y=t[0, a0[128], a1[128]])"), std::string::npos) << dump;
  EXPECT_NE(dump.find("y=t[2, a0[128], a1[128]])"), std::string::npos) << dump;
  EXPECT_EQ(loopnest::emit(form), text);
}

// `v = exp(u[:, ::-1])` reads all of u; `u[:, 255]` is read again after it, so u does not die at
// the exponent and v may not be written over it (v is stored after the add, so nor does the add's
// result go over v; nor over u's column, read broadcast by a stride-0 term, where all 256
// columns of the sum would land on one). The region a backward term reaches runs
// down from its start: taken upwards it was empty, and in_place wrote over the column still read.
TEST(LoopNestAnalysis, ABackwardAccessReachesDownFromItsStart) {
  std::string text = std::string(kHead) +
                     "def kernel(x):\n"
                     "    out = nl.ndarray((256, 256), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    exps = nl.ndarray((256, 256), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                     "    ip = nl.arange(128)[:, None]\n"
                     "    jf = nl.arange(256)[None, :]\n"
                     "    for i in nl.affine_range(2):\n"
                     "        u = nl.load(x[i * 128 + ip, jf])\n"
                     "        v = nl.exp(u[ip, 255 - jf])\n"
                     "        w = nl.add(v, u[ip, 255 + 0 * jf])\n"
                     "        nl.store(out[i * 128 + ip, jf], value=w)\n"
                     "        nl.store(exps[i * 128 + ip, jf], value=v)\n"
                     "    return out, exps\n";
  auto args = arrays({{256, 256}});
  loopnest::Kernel form = loopnest::lift_source("k.py", text, args);
  for (const auto& s : loopnest::find_sites(form)) EXPECT_NE(s.transform, "in_place") << s.key() << "\n" << loopnest::apply_site("k.py", text, args, s);
  // Without the later read, u dies at the exponent and the move is offered.
  std::string dies = text;
  dies.replace(dies.find("u[ip, 255 + 0 * jf]"), 19, "v");
  EXPECT_TRUE(offers(loopnest::lift_source("k.py", dies, args), "in_place"));
}

std::string two_loops(const std::string& range) {
  return std::string(kHead) +
         "def kernel(x, y):\n"
         "    out = nl.ndarray((512, 256), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    out2 = nl.ndarray((512, 256), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    for i in nl.affine_range(" + range + "):\n"
         "        t = nl.load(x[i * 128:(i + 1) * 128, :])\n"
         "        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.exp(t))\n"
         "    for j in nl.affine_range(" + range + "):\n"
         "        u = nl.load(y[j * 128:(j + 1) * 128, :])\n"
         "        nl.store(out2[j * 128:(j + 1) * 128, :], value=nl.exp(u))\n"
         "    return out, out2\n";
}

TEST(LoopNestLift, ALoopWalkingBackwardsLiftsWithItsStep) {
  auto args = arrays({{512, 256}, {512, 256}});
  loopnest::Kernel form = loopnest::lift_source("k.py", two_loops("3, -1, -1"), args);
  std::string dump = loopnest::dump(form);
  EXPECT_NE(dump.find("for i in affine_range(3, -1, -1):"), std::string::npos) << dump;
  const loopnest::Loop& i = form.loops.at(0);
  EXPECT_EQ(i.step, -1);
  EXPECT_EQ(i.trip(), std::optional<int64_t>(4));
  auto ranges = form.ranges();
  EXPECT_EQ(ranges.at(0).first, 0);
  EXPECT_EQ(ranges.at(0).second, 3);
  // A step of -2 from 6 down to (not including) -1: 6, 4, 2, 0.
  loopnest::Loop two = i;
  two.start = loopnest::IExpr(6);
  two.step = -2;
  EXPECT_EQ(two.trip(), std::optional<int64_t>(4));
  // Printed from the form, the header keeps its direction.
  std::string printed = loopnest::emit_checked(form, args, {.regenerate = true});
  EXPECT_NE(printed.find("for i in nl.affine_range(3, -1, -1):"), std::string::npos) << printed;
  // A step of zero is Python's ValueError: refused.
  EXPECT_THROW(loopnest::lift_source("k.py", two_loops("3, -1, 0"), args), loopnest::LiftError);
}

TEST(LoopNestLift, AnUnchangedBackwardLoopPrintsTheAuthorsHeader) {
  std::string base = source_dir() + "/tests/kernels/corpus/p9_mamba_reverse_static";
  auto args = arrays({{128, 512}, {128, 512}});
  loopnest::Kernel form = loopnest::lift_source(base + ".py", read(base + ".py"), args);
  std::string printed = loopnest::emit_checked(form, args);
  EXPECT_NE(printed.find("for c in nl.static_range(n - 1, -1, -1):"), std::string::npos) << printed;
}

TEST(LoopNestTransform, LoopsWalkingBackwardsAreNotFused) {
  auto args = arrays({{512, 256}, {512, 256}});
  // The same two loops walking forwards (start and step written out) are fused.
  EXPECT_TRUE(offers(loopnest::lift_source("k.py", two_loops("0, 4, 1"), args), "fuse_nests"));
  EXPECT_FALSE(offers(loopnest::lift_source("k.py", two_loops("3, -1, -1"), args), "fuse_nests"));
}

}  // namespace

namespace {

// The tile_size site of a kernel: none when it offers none.
std::optional<loopnest::Site> coarsen_site(const loopnest::Kernel& form) {
  for (const auto& s : loopnest::find_sites(form))
    if (s.transform == "tile_size" && s.params.at("direction") == "coarsen") return s;
  return std::nullopt;
}

}  // namespace

// `for col in range(0, cols, 256)` walks column offsets: its variable is the element offset, not a
// tile count. It was never coarsened (tile_size took only unit-step loops), so another author's
// 256-column streaming loop kept its small tiles. Coarsened, the step doubles and the tiles with it;
// both styles offer the same site and print back a loop of 512-column tiles.
TEST(LoopNestTransforms, AStepLoopCoarsensByItsStepInEveryStyle) {
  auto args = arrays({{128, 4096}, {128, 4096}});
  std::set<std::string> keys;
  for (const char* file : {"stepped_chunks.py", "stepped_chunks_grid.py"}) {
    std::string path = source_dir() + "/tests/kernels/" + file;
    std::string text = read(path);
    auto site = coarsen_site(loopnest::lift_source(path, text, args));
    ASSERT_TRUE(site) << file;
    keys.insert(site->key());
    std::string after = loopnest::apply_site(path, text, args, *site);
    std::string dump = loopnest::dump(loopnest::lift_source(path, after, args));
    EXPECT_NE(dump.find(", 4096, 512):"), std::string::npos) << file << "\n" << dump;
    EXPECT_NE(dump.find("+ a1[512]]"), std::string::npos) << file << "\n" << dump;
  }
  EXPECT_EQ(keys.size(), 1u);
  // A step that is no power of two coarsens as well; a loop whose stop is not a whole number of
  // steps (its last chunk reaches past the stop) is left alone.
  std::string partial = std::string(kHead) +
                        "def kernel(a):\n"
                        "    out = nl.ndarray((128, 4000), dtype=a.dtype, buffer=nl.shared_hbm)\n"
                        "    for c in range(0, 4000, 500):\n"
                        "        t = nl.load(a[0:128, c:c + 500])\n"
                        "        nl.store(out[0:128, c:c + 500], value=t)\n"
                        "    return out\n";
  EXPECT_TRUE(coarsen_site(loopnest::lift_source("k.py", partial, arrays({{128, 4000}}))));
  std::string ragged = std::string(kHead) +
                       "def kernel(a):\n"
                       "    out = nl.ndarray((128, 4096), dtype=a.dtype, buffer=nl.shared_hbm)\n"
                       "    for c in range(0, 3968, 512):\n"
                       "        t = nl.load(a[0:128, c:c + 512])\n"
                       "        nl.store(out[0:128, c:c + 512], value=t)\n"
                       "    return out\n";
  EXPECT_FALSE(coarsen_site(loopnest::lift_source("k.py", ragged, arrays({{128, 4096}}))));
}

// `with nki.compiler.no_reorder():` around a tile body orders its instructions and changes no
// value. An outside author's silu with such a block was offered no tile_size site (the block lifts
// as an always-taken conditional, which coarsening refused), so the agent never widened its
// 128-column tiles. The block is now transparent to coarsening: the same site as without it, and
// the printed kernel keeps the `with` line around the wider tiles.
TEST(LoopNestTransforms, ANoReorderBlockDoesNotHideTheCoarseningOfItsLoop) {
  auto body = [](bool with_block) {
    std::string pad = with_block ? "    " : "";
    return std::string(kHead) +
           "def kernel(a):\n"
           "    out = nl.ndarray((128, 4096), dtype=a.dtype, buffer=nl.shared_hbm)\n"
           "    for j in nl.affine_range(32):\n" +
           (with_block ? "        with nki.compiler.no_reorder():\n" : "") + pad +
           "        t = nl.load(a[0:128, j * 128:(j + 1) * 128])\n" + pad +
           "        u = nl.multiply(t, 2.0)\n" + pad +
           "        nl.store(out[0:128, j * 128:(j + 1) * 128], value=u)\n"
           "    return out\n";
  };
  auto args = arrays({{128, 4096}});
  auto plain = coarsen_site(loopnest::lift_source("k.py", body(false), args));
  auto blocked = coarsen_site(loopnest::lift_source("k.py", body(true), args));
  ASSERT_TRUE(plain);
  ASSERT_TRUE(blocked);
  EXPECT_EQ(blocked->key(), plain->key());
  std::string after = loopnest::apply_site("k.py", body(true), args, *blocked);
  EXPECT_NE(after.find("        with nki.compiler.no_reorder():\n"), std::string::npos) << after;
  std::string dump = loopnest::dump(loopnest::lift_source("k.py", after, args));
  EXPECT_NE(dump.find("affine_range(16)"), std::string::npos) << dump;
}
