// A vector with room for N elements inside the object, spilling to the heap beyond N.
//
// Why: every call binds its arguments (BoundArgs) and every instruction builds affine views
// (base, coefficients), boxes (lo, hi) and index expressions whose sizes are a parameter count
// or a tensor rank (2-4 in practice). As std::vectors each was a heap allocation, and
// malloc/free were a third of the trace-only run time (docs/performance/nki.md). Only the
// vector operations those structures use are provided.
//
// Elements live in raw storage and only [0, size) are constructed, so an unused inline slot
// costs nothing (BoundArgs has room for 12 parameters; most calls bind 3 or 4).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace nki {

template <class T, size_t N>
class SmallVec {
 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVec() = default;
  explicit SmallVec(size_t n, const T& v = T()) { assign(n, v); }
  SmallVec(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  explicit SmallVec(const std::vector<T>& v) { assign(v.begin(), v.end()); }
  SmallVec(const SmallVec& o) { copy_from(o); }
  SmallVec(SmallVec&& o) noexcept { take(o); }
  ~SmallVec() { release(); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) copy_from(o);
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  SmallVec& operator=(const std::vector<T>& v) {
    assign(v.begin(), v.end());
    return *this;
  }
  SmallVec& operator=(std::initializer_list<T> il) {
    assign(il.begin(), il.end());
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  T* begin() { return ptr_; }
  T* end() { return ptr_ + size_; }
  const T* begin() const { return ptr_; }
  const T* end() const { return ptr_ + size_; }
  T& operator[](size_t i) { return ptr_[i]; }
  const T& operator[](size_t i) const { return ptr_[i]; }
  T& front() { return ptr_[0]; }
  const T& front() const { return ptr_[0]; }
  T& back() { return ptr_[size_ - 1]; }
  const T& back() const { return ptr_[size_ - 1]; }

  void clear() {
    std::destroy(ptr_, ptr_ + size_);
    size_ = 0;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    T* p = std::allocator<T>().allocate(n);
    std::uninitialized_move(ptr_, ptr_ + size_, p);
    std::destroy(ptr_, ptr_ + size_);
    if (ptr_ != inline_buf()) std::allocator<T>().deallocate(ptr_, cap_);
    ptr_ = p;
    cap_ = n;
  }
  void assign(size_t n, const T& v) {
    T copy = v;  // `v` may be an element of this vector
    clear();
    reserve(n);
    std::uninitialized_fill_n(ptr_, n, copy);
    size_ = n;
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  void assign(It first, It last) {
    size_t n = size_t(std::distance(first, last));
    clear();
    reserve(n);
    std::uninitialized_copy(first, last, ptr_);
    size_ = n;
  }
  void resize(size_t n, const T& v = T()) {
    if (n <= size_) {
      std::destroy(ptr_ + n, ptr_ + size_);
    } else {
      T copy = v;
      reserve(n);
      std::uninitialized_fill(ptr_ + size_, ptr_ + n, copy);
    }
    size_ = n;
  }
  void push_back(const T& v) {
    if (size_ < cap_) {
      ::new (static_cast<void*>(ptr_ + size_)) T(v);
    } else {
      T copy = v;  // `v` may be an element of this vector, which reserve() moves
      reserve(cap_ * 2);
      ::new (static_cast<void*>(ptr_ + size_)) T(std::move(copy));
    }
    ++size_;
  }
  template <class... A>
  T& emplace_back(A&&... args) {
    push_back(T(std::forward<A>(args)...));
    return back();
  }
  void pop_back() { resize(size_ - 1); }
  T* erase(T* first, T* last) {
    T* new_end = std::move(last, end(), first);
    std::destroy(new_end, end());
    size_ = size_t(new_end - ptr_);
    return first;
  }
  T* erase(T* pos) { return erase(pos, pos + 1); }
  T* insert(T* pos, size_t n, const T& v) {
    size_t at = size_t(pos - ptr_), old = size_;
    T copy = v;
    resize(size_ + n, copy);
    std::move_backward(ptr_ + at, ptr_ + old, ptr_ + old + n);
    std::fill(ptr_ + at, ptr_ + at + n, copy);
    return ptr_ + at;
  }
  std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }
  // Implicit, so that code written for std::vector (shape_str, cold paths) keeps working; it
  // allocates, so hot paths should not rely on it.
  operator std::vector<T>() const { return to_vector(); }  // NOLINT(google-explicit-constructor)

  friend bool operator==(const SmallVec& a, const SmallVec& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const SmallVec& a, const std::vector<T>& b) {
    return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  // Trivially copyable elements are copied as the raw bytes of the whole inline buffer: a
  // fixed-size copy the compiler inlines (a copy of `size_` elements is a memmove call).
  static constexpr bool kRawCopy = std::is_trivially_copyable_v<T>;

  T* inline_buf() { return reinterpret_cast<T*>(raw_); }
  const T* inline_buf() const { return reinterpret_cast<const T*>(raw_); }

  void copy_from(const SmallVec& o) {
    if constexpr (kRawCopy) {
      if (o.size_ <= N && ptr_ == inline_buf()) {
        if (o.ptr_ == o.inline_buf()) std::memcpy(raw_, o.raw_, sizeof(raw_));
        else std::memcpy(raw_, o.ptr_, o.size_ * sizeof(T));
        size_ = o.size_;
        return;
      }
    }
    assign(o.begin(), o.end());
  }
  void release() {
    clear();
    if (ptr_ != inline_buf()) std::allocator<T>().deallocate(ptr_, cap_);
    ptr_ = inline_buf();
    cap_ = N;
  }
  // Moves `o`'s elements here (this is empty and inline); leaves `o` empty.
  void take(SmallVec& o) {
    if (o.ptr_ == o.inline_buf()) {
      if constexpr (kRawCopy) {
        std::memcpy(raw_, o.raw_, sizeof(raw_));
      } else {
        std::uninitialized_move(o.ptr_, o.ptr_ + o.size_, ptr_);
        std::destroy(o.ptr_, o.ptr_ + o.size_);
      }
    } else {
      ptr_ = o.ptr_;
      cap_ = o.cap_;
      o.ptr_ = o.inline_buf();
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T* ptr_ = inline_buf();
  size_t size_ = 0;
  size_t cap_ = N;
  alignas(T) unsigned char raw_[N * sizeof(T)];
};

// std::erase_if for SmallVec (found by argument-dependent lookup).
template <class T, size_t N, class Pred>
size_t erase_if(SmallVec<T, N>& v, Pred pred) {
  T* it = std::remove_if(v.begin(), v.end(), pred);
  size_t n = size_t(v.end() - it);
  v.erase(it, v.end());
  return n;
}

}  // namespace nki
