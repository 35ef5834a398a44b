#include "nki/lib/tensor_views.h"

#include <fmt/format.h>

#include "nki/diagnostics.h"

namespace nki::lib {

namespace {

// One internal axis: its extent and its storage coefficients (one per storage dim).
struct Digit {
  int64_t extent = 1;
  std::vector<int64_t> coef;
};
using Group = std::vector<Digit>;  // the digits of one view axis, most significant first

struct Groups {
  SmallVec<int64_t, 4> base;
  std::vector<Group> axes;
  int storage_ndim = 0;
  const ViewLayout* layout = nullptr;
  int flat_from = -1;  // AffineView::flat_from
  Digit unit() const { return Digit{1, std::vector<int64_t>(size_t(storage_ndim), 0)}; }
};

Groups groups_of(const AffineView& v, const ViewLayout& layout) {
  Groups g;
  g.base = v.base;
  g.storage_ndim = v.storage_ndim();
  g.layout = &layout;
  g.flat_from = v.flat_from;
  for (int k = 0; k < v.ndim(); ++k) {
    int first = v.first_internal(k), n = v.split() ? v.parts[size_t(k)] : 1;
    Group group;
    for (int i = first; i < first + n; ++i) {
      Digit d{v.split() ? v.digits[size_t(i)] : v.shape[size_t(k)], {}};
      for (int s = 0; s < g.storage_ndim; ++s) d.coef.push_back(v.c(s, i));
      group.push_back(std::move(d));
    }
    g.axes.push_back(std::move(group));
  }
  return g;
}

int64_t extent_of(const Group& group) {
  int64_t n = 1;
  for (const Digit& d : group) n *= d.extent;
  return n;
}

// Whether `outer` followed by `inner` is one range: the outer coefficient is the inner one's times
// its extent, dim by dim before the layout's flat part and as a flat sum within it. Lowers
// `flat_from` to the first dim where only the flat sums chain.
bool chains(const Digit& outer, const Digit& inner, const ViewLayout& layout, int& flat_from) {
  int r = int(inner.coef.size()), ff = std::min(layout.first_free, r);
  int first_unchained = -1;
  int64_t flat_outer = 0, flat_inner = 0;
  for (int s = 0; s < r; ++s) {
    bool same = outer.coef[size_t(s)] == inner.coef[size_t(s)] * inner.extent;
    if (s < ff && !same) return false;
    if (!same && first_unchained < 0) first_unchained = s;
    if (s >= ff) {
      flat_outer += outer.coef[size_t(s)] * layout.strides[size_t(s)];
      flat_inner += inner.coef[size_t(s)] * layout.strides[size_t(s)];
    }
  }
  if (first_unchained < 0) return true;
  if (flat_outer != flat_inner * inner.extent) return false;
  flat_from = flat_from < 0 ? first_unchained : std::min(flat_from, first_unchained);
  return true;
}

// Digits of extent 1 leave a multi-digit group; neighbours whose strides chain (chains()) merge
// into one.
void simplify(Group& group, const ViewLayout& layout, int& flat_from) {
  if (group.size() < 2) return;
  Group out;
  for (Digit& d : group)
    if (d.extent != 1) out.push_back(std::move(d));
  if (out.empty()) out.push_back(std::move(group.front()));
  Group merged;
  for (Digit& d : out) {
    if (!merged.empty()) {
      Digit& prev = merged.back();
      if (chains(prev, d, layout, flat_from)) {
        prev.extent *= d.extent;
        prev.coef = d.coef;
        continue;
      }
    }
    merged.push_back(std::move(d));
  }
  group = std::move(merged);
}

AffineView view_of(Groups g) {
  AffineView v;
  v.base = g.base;
  bool split = false;
  for (Group& group : g.axes) {
    simplify(group, *g.layout, g.flat_from);
    split = split || group.size() != 1;
    v.shape.push_back(extent_of(group));
  }
  v.flat_from = int8_t(g.flat_from);
  std::vector<const Digit*> digits;
  for (const Group& group : g.axes)
    for (const Digit& d : group) digits.push_back(&d);
  size_t m = digits.size();
  v.coef.assign(size_t(g.storage_ndim) * m, 0);
  for (size_t i = 0; i < m; ++i)
    for (int s = 0; s < g.storage_ndim; ++s) v.coef[size_t(s) * m + i] = digits[i]->coef[size_t(s)];
  if (split) {
    for (const Digit* d : digits) v.digits.push_back(d->extent);
    for (const Group& group : g.axes) {
      if (group.size() > 100) throw NkiError(ErrorKind::Unsupported, "a view axis merges more than 100 index digits");
      v.parts.push_back(int8_t(group.size()));
    }
  }
  return v;
}

int64_t axis_arg(int64_t dim, int64_t ndim, const char* api) {
  int64_t d = dim < 0 ? dim + ndim : dim;
  if (d < 0 || d >= ndim)
    throw NkiError(ErrorKind::Index, fmt::format("{}: dimension {} is out of range for a view of {} dimensions", api, dim, ndim));
  return d;
}

// Splits the digits of `queue` (most significant first) into groups of the given sizes, cutting a
// digit where a size divides it; a Value error when a size straddles two digits.
std::vector<Group> split_digits(Group queue, const std::vector<int64_t>& sizes, const Digit& unit, const char* api) {
  std::vector<Group> out;
  size_t next = 0;
  auto skip_units = [&] {
    while (next < queue.size() && queue[next].extent == 1) ++next;
  };
  for (int64_t size : sizes) {
    Group group;
    int64_t need = size;
    while (need > 1) {
      skip_units();
      if (next == queue.size()) break;
      Digit& d = queue[next];
      if (need % d.extent == 0) {
        group.push_back(d);
        need /= d.extent;
        ++next;
      } else if (d.extent % need == 0) {
        Digit outer = d;
        outer.extent = need;
        for (auto& c : outer.coef) c *= d.extent / need;
        d.extent /= need;
        group.push_back(std::move(outer));
        need = 1;
      } else {
        throw NkiError(ErrorKind::Value, fmt::format("{}: a size {} straddles two strided index ranges of the view; "
                                                     "the view cannot be reshaped without a copy", api, size));
      }
    }
    if (group.empty()) group.push_back(unit);
    out.push_back(std::move(group));
  }
  return out;
}

std::vector<int64_t> infer_sizes(std::vector<int64_t> sizes, int64_t total, const char* api) {
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == -1 && infer < 0) infer = int64_t(k);
    else if (sizes[k] < 0) throw NkiError(ErrorKind::Value, fmt::format("{}: negative size {}", api, sizes[k]));
    else known *= sizes[k];
  }
  if (infer >= 0 && (known <= 0 || total % known != 0))
    throw NkiError(ErrorKind::Value, fmt::format("{}: sizes {} do not divide the {} elements of the view", api,
                                                 tensor::shape_str(sizes), total));
  if (infer >= 0) sizes[size_t(infer)] = total / known;
  int64_t n = 1;
  for (auto s : sizes) n *= s;
  if (n != total)
    throw NkiError(ErrorKind::Value, fmt::format("{}: sizes {} hold {} elements, the view has {}", api,
                                                 tensor::shape_str(sizes), n, total));
  return sizes;
}

}  // namespace

AffineView permute_view(const AffineView& v, const std::vector<int64_t>& dims, const ViewLayout& layout) {
  Groups g = groups_of(v, layout);
  if (int64_t(dims.size()) != v.ndim())
    throw NkiError(ErrorKind::Value, fmt::format("tensor.permute: {} dimensions given for a view of {}", dims.size(), v.ndim()));
  std::vector<Group> axes;
  std::vector<bool> seen(size_t(v.ndim()), false);
  for (int64_t dim : dims) {
    int64_t d = axis_arg(dim, v.ndim(), "tensor.permute");
    if (seen[size_t(d)]) throw NkiError(ErrorKind::Value, fmt::format("tensor.permute: dimension {} repeated", d));
    seen[size_t(d)] = true;
    axes.push_back(g.axes[size_t(d)]);
  }
  g.axes = std::move(axes);
  return view_of(std::move(g));
}

AffineView expand_dim_view(const AffineView& v, int64_t dim, const ViewLayout& layout) {
  Groups g = groups_of(v, layout);
  int64_t d = axis_arg(dim, v.ndim() + 1, "tensor.expand_dim");
  g.axes.insert(g.axes.begin() + d, Group{g.unit()});
  return view_of(std::move(g));
}

AffineView squeeze_dim_view(const AffineView& v, int64_t dim, const ViewLayout& layout) {
  Groups g = groups_of(v, layout);
  int64_t d = axis_arg(dim, v.ndim(), "tensor.squeeze_dim");
  if (extent_of(g.axes[size_t(d)]) != 1)
    throw NkiError(ErrorKind::Value, fmt::format("tensor.squeeze_dim: dimension {} has size {}, not 1", d, v.shape[size_t(d)]));
  g.axes.erase(g.axes.begin() + d);
  return view_of(std::move(g));
}

AffineView broadcast_dim_view(const AffineView& v, int64_t dim, int64_t size, const ViewLayout& layout) {
  Groups g = groups_of(v, layout);
  int64_t d = axis_arg(dim, v.ndim(), "tensor.broadcast");
  if (extent_of(g.axes[size_t(d)]) != 1)
    throw NkiError(ErrorKind::Value, fmt::format("tensor.broadcast: dimension {} has size {}; only a size-1 dimension "
                                                 "broadcasts", d, v.shape[size_t(d)]));
  if (size < 1) throw NkiError(ErrorKind::Value, fmt::format("tensor.broadcast: size {} is not positive", size));
  Digit rep = g.unit();
  rep.extent = size;  // every index reads the same element: coefficient 0
  g.axes[size_t(d)] = Group{rep};
  return view_of(std::move(g));
}

AffineView select_view(const AffineView& v, int64_t dim, int64_t index, const ViewLayout& layout) {
  Groups g = groups_of(v, layout);
  int64_t d = axis_arg(dim, v.ndim(), "tensor.select");
  Group& group = g.axes[size_t(d)];
  int64_t n = extent_of(group), i = index < 0 ? index + n : index;
  if (i < 0 || i >= n)
    throw NkiError(ErrorKind::Index, fmt::format("tensor.select: index {} is out of range for dimension {} of size {}", index, d, n));
  for (size_t k = group.size(); k-- > 0;) {  // least significant digit first
    int64_t digit = i % group[k].extent;
    i /= group[k].extent;
    for (int s = 0; s < g.storage_ndim; ++s) g.base[size_t(s)] += group[k].coef[size_t(s)] * digit;
  }
  g.axes.erase(g.axes.begin() + d);
  return view_of(std::move(g));
}

AffineView reshape_dim_view(const AffineView& v, int64_t dim, const std::vector<int64_t>& sizes, const ViewLayout& layout) {
  Groups g = groups_of(v, layout);
  int64_t d = axis_arg(dim, v.ndim(), "tensor.reshape_dim");
  if (sizes.empty()) throw NkiError(ErrorKind::Value, "tensor.reshape_dim: no sizes given");
  std::vector<int64_t> s = infer_sizes(sizes, v.shape[size_t(d)], "tensor.reshape_dim");
  std::vector<Group> parts = split_digits(g.axes[size_t(d)], s, g.unit(), "tensor.reshape_dim");
  g.axes.erase(g.axes.begin() + d);
  g.axes.insert(g.axes.begin() + d, parts.begin(), parts.end());
  return view_of(std::move(g));
}

AffineView flatten_dims_view(const AffineView& v, int64_t start, int64_t end, const ViewLayout& layout) {
  Groups g = groups_of(v, layout);
  int64_t a = axis_arg(start, v.ndim(), "tensor.flatten_dims"), b = axis_arg(end, v.ndim(), "tensor.flatten_dims");
  if (a > b) throw NkiError(ErrorKind::Value, fmt::format("tensor.flatten_dims: start {} is after end {}", a, b));
  Group joined;
  for (int64_t k = a; k <= b; ++k) joined.insert(joined.end(), g.axes[size_t(k)].begin(), g.axes[size_t(k)].end());
  g.axes.erase(g.axes.begin() + a, g.axes.begin() + b + 1);
  g.axes.insert(g.axes.begin() + a, std::move(joined));
  return view_of(std::move(g));
}

AffineView reshape_view(const AffineView& v, const std::vector<int64_t>& shape, const ViewLayout& layout) {
  Groups g = groups_of(v, layout);
  Group all;
  for (const Group& group : g.axes) all.insert(all.end(), group.begin(), group.end());
  simplify(all, layout, g.flat_from);  // the axes' ranges that are one range split as one
  std::vector<int64_t> s = infer_sizes(shape, tensor::num_elements(v.shape), "tensor.reshape");
  g.axes = split_digits(std::move(all), s, g.unit(), "tensor.reshape");
  return view_of(std::move(g));
}

std::vector<std::pair<int64_t, int64_t>> view_pattern(const AffineView& v, const tensor::Strides& storage_strides) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int k = 0; k < v.axes(); ++k)
    out.push_back({v.flat_stride(storage_strides, k), v.split() ? v.digits[size_t(k)] : v.shape[size_t(k)]});
  return out;
}

}  // namespace nki::lib
