// The newer API's tensor view methods (nki/lib/tensor_views.h): each view of an HBM tensor,
// copied out by DMA, holds exactly what the numpy expression that reads the same elements holds.
// The numpy side is checked against real numpy by tests/golden/numpy/view_equivalents.py (the same
// expressions on the same input).
#include <fmt/format.h>

#include "kernel_harness.h"
#include "numpy_reads.h"
#include "nki/diagnostics.h"
#include "tensor/ops.h"

namespace nki::lib {
namespace {

using testing::expect_kernel_reads_as_numpy;
using testing::Harness;
using testing::iota_468;

struct ViewCase {
  const char* view;   // method calls on the kernel's HBM input `x` of shape (4, 6, 8)
  const char* numpy;  // the same elements of `a` (the same values as a numpy array)
};

const ViewCase kCases[] = {
    {"permute(2, 0, 1)", "np.transpose(a, (2, 0, 1))"},
    {"permute((1, 0, 2)).flatten_dims(1, 2)", "np.transpose(a, (1, 0, 2)).reshape(6, 32)"},
    {"select(1, 3)", "a[:, 3, :]"},
    {"select(2, -1)", "a[:, :, -1]"},
    {"reshape_dim(2, (2, 4))", "a.reshape(4, 6, 2, 4)"},
    {"reshape_dim(1, (3, -1))", "a.reshape(4, 3, 2, 8)"},
    {"expand_dim(1)", "a[:, None]"},
    {"select(1, 0).expand_dim(1).broadcast(1, 5)", "np.broadcast_to(a[:, 0:1, :], (4, 5, 8))"},
    {"expand_dim(0).squeeze_dim(0)", "a"},
    {"permute(1, 0, 2).reshape((12, 16))", "np.transpose(a, (1, 0, 2)).reshape(12, 16)"},
    {"permute(2, 1, 0)[:, ::2, 1:3]", "np.transpose(a, (2, 1, 0))[:, ::2, 1:3]"},
    {"flatten_dims(0, 1).select(0, 7)", "a.reshape(24, 8)[7]"},
    {"flatten_dims()", "a.reshape(192)"},
    {"permute(0, 2, 1).flatten_dims(1, 2).reshape_dim(1, (8, 6))", "np.transpose(a, (0, 2, 1)).reshape(4, 8, 6)"},
    {"expand_dims(3)", "np.expand_dims(a, 3)"},
    // Ranges that are one range of the storage's flat layout merge across its dims, so a size
    // may cut where the storage's dims do not: 16 straddles the rows of 8, 3 the 4 x 6 pairs.
    {"flatten_dims(1, 2).reshape_dim(1, (3, 16))", "a.reshape(4, 3, 16)"},
    {"flatten_dims().reshape((16, 12))", "a.reshape(16, 12)"},
    {"reshape((3, 64)).select(0, 1).reshape_dim(0, (4, 16))", "a.reshape(3, 64)[1].reshape(4, 16)"},
    {"select(0, 1).reshape((4, 12))", "a[1].reshape(4, 12)"},
    {"permute(2, 0, 1).flatten_dims(1, 2).reshape_dim(1, (8, 3))", "np.transpose(a, (2, 0, 1)).reshape(8, 8, 3)"},
    {"flatten_dims(0, 1)[3:9].reshape_dim(0, (2, 3)).expand_dim(0).squeeze_dim(0)", "a.reshape(24, 8)[3:9].reshape(2, 3, 8)"},
    {"select(1, 2).reshape_dim(1, (2, 4)).flatten_dims(0, 1).permute(1, 0)", "a[:, 2, :].reshape(8, 4).T"},
    {"flatten_dims(1, 2).reshape_dim(1, (-1, 12)).select(1, 2).expand_dim(1).broadcast(1, 2)",
     "np.broadcast_to(a.reshape(4, 4, 12)[:, 2:3, :], (4, 2, 12))"},
    {"permute(1, 2, 0).flatten_dims(0, 1).reshape_dim(0, (12, 4)).permute(2, 0, 1)",
     "np.transpose(np.transpose(a, (1, 2, 0)).reshape(12, 4, 4), (2, 0, 1))"}
};

std::string module_text(const std::string& view, const std::string& numpy, const std::string& extra = "") {
  return fmt::format(R"(import numpy as np
import nki
import nki.isa as nisa
import nki.language as nl


def ref(a):
    return np.ascontiguousarray({})


@nki.jit
def kernel(x):
    v = x.{}
{}    out = nl.ndarray(v.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=v)
    return out
)", numpy, view, extra);
}

TEST(TensorViews, EachViewReadsWhatNumpyReads) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.view);
    expect_kernel_reads_as_numpy(module_text(c.view, c.numpy), true);
  }
}

// The pattern queries: what .ap() would take back, row-major contiguity, flat strides and offset.
TEST(TensorViews, PatternStridesAndContiguity) {
  Harness h;
  auto mod = h.load_text("views.py", module_text("select(1, 3)", "a[:, 3, :]", R"(    assert v.get_pattern() == [[48, 4], [1, 8]] and v.offset == 24 and v.strides == (48, 1)
    assert x.permute(2, 0, 1).strides == (1, 48, 8) and x.permute(2, 0, 1).offset == 0
    assert x.is_contiguous() and not x.permute(1, 0, 2).is_contiguous() and not v.is_contiguous()
    assert x.reshape_dim(2, (2, 4)).is_contiguous() and x.select(0, 1).is_contiguous()
    assert x.permute(1, 0, 2).reshape((12, 16)).get_pattern() == [[8, 6], [96, 2], [48, 2], [1, 8]]
    assert not x.is_indirect() and x.assert_shape((4, 6, 8)) is x
    f = x.flatten_dims(1, 2)
    assert f.get_pattern() == [[48, 4], [1, 48]] and f.strides == (48, 1) and f.is_contiguous()
    assert f.reshape_dim(1, (3, 16)).get_pattern() == [[48, 4], [16, 3], [1, 16]]
    assert x.permute(2, 0, 1).flatten_dims(1, 2).get_pattern() == [[1, 8], [8, 24]]
    assert x.flatten_dims().get_pattern() == [[1, 192]] and x.flatten_dims(0, 1).select(0, 7).offset == 56
)"));
  try {
    h.run_module(*mod, {iota_468()});
  } catch (const NkiError& e) {
    FAIL() << render(e.diag);
  }
}

// Views that do not exist are refused with the rule broken, at the call.
TEST(TensorViews, ImpossibleViewsAreRefusedAtTheCall) {
  const std::pair<const char*, const char*> bad[] = {
      {"squeeze_dim(0)", "dimension 0 has size 4, not 1"},
      {"broadcast(2, 3)", "only a size-1 dimension broadcasts"},
      {"permute(0, 0, 1)", "dimension 0 repeated"},
      {"select(1, 6)", "index 6 is out of range for dimension 1 of size 6"},
      {"reshape_dim(1, (4, 2))", "hold 8 elements, the view has 6"},
      {"permute(1, 0, 2).reshape((4, 48))", "straddles two strided index ranges"},
      {"permute(1, 0, 2).flatten_dims(0, 1).reshape_dim(0, (4, 6))", "straddles two strided index ranges"},
      {"flatten_dims(1, 2).reshape_dim(1, (5, -1))", "sizes (5, -1) do not divide the 48 elements of the view"},
      {"rearrange('p a b -> p b a')", "its parameters are not documented"},
      {"assert_shape((4, 8))", "err_annotation_shape_mismatch"},
  };
  for (const auto& [view, message] : bad) {
    SCOPED_TRACE(view);
    Harness h;
    auto mod = h.load_text("views.py", module_text(view, "a"));
    try {
      h.run_module(*mod, {iota_468()});
      ADD_FAILURE() << "ran";
    } catch (const NkiError& e) {
      std::string text = render(e.diag);
      EXPECT_NE(text.find(message), std::string::npos) << text;
      EXPECT_NE(text.find("views.py:13:"), std::string::npos) << text;  // file:line:col of the call
    }
  }
}

// A view whose ranges merged over the storage's flat layout is still bounded: by the flat range
// of the dims it merged (an index past the merged rows' end), and per dim outside it.
TEST(TensorViews, MergedViewsKeepTheirBounds) {
  const std::pair<const char*, const char*> bad[] = {
      {"flatten_dims(0, 1)[nl.arange(25)[:, None], nl.arange(8)[None, :]]",
       "the flat range of dimensions 0..2 has size 192 but indices [0, 199] are accessed"},
      {"flatten_dims(1, 2)[nl.arange(5)[:, None], nl.arange(48)[None, :]]",
       "dimension 0 has size 4 but indices [0, 4] are accessed"},
      {"flatten_dims(1, 2)[nl.arange(4)[:, None], 8 + nl.arange(48)[None, :]]",
       "the flat range of dimensions 1..2 has size 48 but indices [8, 55] are accessed"},
  };
  for (const auto& [view, message] : bad) {
    SCOPED_TRACE(view);
    Harness h;
    auto mod = h.load_text("views.py", module_text(view, "a"));
    try {
      h.run_module(*mod, {iota_468()});
      ADD_FAILURE() << "ran";
    } catch (const NkiError& e) {
      EXPECT_EQ(e.diag.kind, ErrorKind::Index) << render(e.diag);
      EXPECT_NE(render(e.diag).find(message), std::string::npos) << render(e.diag);
    }
  }
}

}  // namespace
}  // namespace nki::lib
