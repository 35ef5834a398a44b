// The seven calibration baselines as synthetic record streams: the loop nests of the kernels in
// this folder (and nkibench.md "Real Trn1 profiles"), emitted with trn::TraceBuilder, so that the
// simulator can be measured without the NKI interpreter. Each instruction mirrors one NKI call.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trn/trace_builder.h"

namespace fidelity {

using trn::Engine;
using trn::Opcode;
using trn::Operand;
using trn::TraceBuilder;

// Small vocabulary over TraceBuilder: fresh tiles and the NKI calls the kernels use.
class Kernel {
 public:
  explicit Kernel(TraceBuilder& b) : b(b) {}
  TraceBuilder& b;

  // A fresh SBUF tile [p, free] (a new tensor, as an instruction result or a loop-local ndarray).
  Operand fresh(const char* name, uint16_t p, uint32_t free) {
    return b.tile(b.sbuf(name, p, uint64_t(free) * 4), 0, p, free);
  }
  Operand fresh_psum(const char* name, uint16_t p, uint32_t free) {
    return b.psum_tile(b.psum(name, p, uint64_t(free) * 4), 0, p, free);
  }
  static Operand slice(Operand t, uint32_t free) {
    t.free_elements = free;
    t.contiguous_bytes = free * t.dtype_bytes;
    return t;
  }
  static Operand rows(Operand t, uint16_t p) {
    t.partitions = p;
    return t;
  }
  void act(const Operand& in, const Operand& out, const Operand* bias = nullptr) {
    std::vector<Operand> ins{in};
    if (bias) ins.push_back(*bias);
    b.op(Opcode::Activation, Engine::Scalar, ins, {out});
  }
  void tensor_scalar(const Operand& in, const Operand& out, const Operand* operand = nullptr) {
    std::vector<Operand> ins{in};
    if (operand) ins.push_back(*operand);
    b.op(Opcode::TensorScalar, Engine::Vector, ins, {out});
  }
  void tensor_tensor(const Operand& a, const Operand& c, const Operand& out) {
    b.op(Opcode::TensorTensor, Engine::Vector, {a, c}, {out});
  }
  void reciprocal(const Operand& in, const Operand& out) {
    b.op(Opcode::Reciprocal, Engine::Vector, {in}, {out});
  }
  void reduce(const Operand& in, const Operand& out) {
    b.op(Opcode::TensorReduce, Engine::Vector, {in}, {out});
  }
  void copy(const Operand& in, const Operand& out) {
    b.op(Opcode::TensorCopy, Engine::Vector, {in}, {out});
  }
  // PSUM <- transpose(in) on the Tensor Engine (nc_matmul against the identity).
  void pe_transpose(const Operand& in, const Operand& out_psum, const Operand& ident) {
    b.op(Opcode::Transpose, Engine::Tensor, {in, ident}, {out_psum});
  }
};

inline void silu(TraceBuilder& b, int rows = 32, int cols = 7168) {
  Kernel k(b);
  auto x = b.hbm("x", uint64_t(128) * rows * cols * 4, true);
  auto out = b.hbm("out", uint64_t(128) * rows * cols * 4, false, true);
  Operand zero_bias = k.fresh("zero_bias", 128, 1);
  b.op(Opcode::Memset, Engine::Vector, {}, {zero_bias});
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols / 1024; ++c) {
      Operand x_tile = k.fresh("x_tile", 128, 1024);
      b.load(x_tile, b.hbm_rows(x, 128, 1024));
      Operand res = k.fresh("res", 128, 1024);
      for (int h = 0; h < 2; ++h) {
        Operand xs = Kernel::slice(x_tile, 512);
        Operand e = k.fresh("e", 128, 512), denom = k.fresh("denom", 128, 512), inv = k.fresh("inv", 128, 512);
        k.act(xs, e, &zero_bias);
        k.tensor_scalar(e, denom);
        k.reciprocal(denom, inv);
        k.tensor_tensor(xs, inv, Kernel::slice(res, 512));
      }
      b.store(b.hbm_rows(out, 128, 1024), res);
    }
}

inline void adamw(TraceBuilder& b, int rows = 10944, int cols = 2048) {
  Kernel k(b);
  uint64_t bytes = uint64_t(rows) * cols * 4;
  auto theta = b.hbm("theta", bytes, true), grad = b.hbm("grad", bytes, true);
  auto m = b.hbm("m", bytes, true), v = b.hbm("v", bytes, true);
  auto out = b.hbm("out", bytes, false, true);
  Operand zero_bias = k.fresh("zero_bias", 128, 1);
  b.op(Opcode::Memset, Engine::Vector, {}, {zero_bias});
  for (int r0 = 0; r0 < rows; r0 += 128) {
    uint16_t h = uint16_t(std::min(128, rows - r0));
    for (int c = 0; c < cols / 1024; ++c) {
      Operand t[4];
      const uint32_t src[4] = {theta, grad, m, v};
      for (int idx = 0; idx < 4; ++idx) {
        t[idx] = Kernel::rows(k.fresh("in_tile", 128, 1024), h);
        b.load(t[idx], b.hbm_rows(src[idx], h, 1024));
      }
      Operand res = Kernel::rows(k.fresh("res", 128, 1024), h);
      for (int half = 0; half < 2; ++half) {
        auto f = [&](const char* name) { return Kernel::rows(k.fresh(name, 128, 512), h); };
        Operand th = Kernel::slice(t[0], 512), g = Kernel::slice(t[1], 512);
        Operand mh = Kernel::slice(t[2], 512), vh = Kernel::slice(t[3], 512);
        Operand m_decay = f("m_decay"), g_part = f("g_part"), m_new = f("m_new"), g_sq = f("g_sq");
        Operand g_sq_part = f("g_sq_part"), v_decay = f("v_decay"), v_new = f("v_new"), root = f("root");
        Operand denom = f("denom"), inv = f("inv"), step = f("step"), step_lr = f("step_lr"), decayed = f("decayed");
        Operand bias = Kernel::rows(zero_bias, h);
        k.tensor_scalar(mh, m_decay);
        k.tensor_scalar(g, g_part);
        k.tensor_tensor(m_decay, g_part, m_new);
        k.tensor_tensor(g, g, g_sq);
        k.tensor_scalar(g_sq, g_sq_part);
        k.tensor_scalar(vh, v_decay);
        k.tensor_tensor(v_decay, g_sq_part, v_new);
        k.act(v_new, root, &bias);
        k.tensor_scalar(root, denom);
        k.reciprocal(denom, inv);
        k.tensor_tensor(m_new, inv, step);
        k.tensor_scalar(step, step_lr);
        k.tensor_scalar(th, decayed);
        k.tensor_tensor(decayed, step_lr, Kernel::slice(res, 512));
      }
      b.store(b.hbm_rows(out, h, 1024), res);
    }
  }
}

// Identity [128, 128] loaded once (nl.shared_constant).
inline Operand load_identity(Kernel& k) {
  auto ident_hbm = k.b.hbm("identity", 128 * 128 * 4, true);
  Operand ident = k.fresh("ident", 128, 128);
  k.b.load(ident, k.b.hbm_rows(ident_hbm, 128, 128));
  return ident;
}

inline void matmul(TraceBuilder& b, int m_tiles = 32, int k_tiles = 40, int n_size = 12288) {
  Kernel k(b);
  auto lhs = b.hbm("lhs", uint64_t(m_tiles) * 128 * k_tiles * 128 * 4, true);
  auto rhs = b.hbm("rhs", uint64_t(k_tiles) * 128 * n_size * 4, true);
  auto out = b.hbm("out", uint64_t(m_tiles) * 128 * n_size * 4, false, true);
  Operand ident = load_identity(k);
  const int chunk = 8;
  for (int n = 0; n < n_size / 1024; ++n) {
    auto rhs_tiles = b.sbuf("rhs_tiles", 128, 4096, k_tiles);
    for (int kt = 0; kt < k_tiles; ++kt) b.load(b.tile(rhs_tiles, kt, 128, 1024), b.hbm_rows(rhs, 128, 1024));
    for (int m = 0; m < m_tiles; ++m) {
      auto lhs_t = b.sbuf("lhs_t", 128, 512, k_tiles);
      for (int c = 0; c < k_tiles / chunk; ++c) {
        Operand rows = k.fresh("rows", 128, chunk * 128);
        b.load(rows, b.hbm_rows(lhs, 128, chunk * 128));
        for (int j = 0; j < chunk; ++j) {
          Operand t_psum = k.fresh_psum("t_psum", 128, 128);
          k.pe_transpose(Kernel::slice(rows, 128), t_psum, ident);
          k.copy(t_psum, b.tile(lhs_t, c * chunk + j, 128, 128));
        }
      }
      for (int h = 0; h < 2; ++h) {
        Operand acc = k.fresh_psum("acc", 128, 512);
        for (int kt = 0; kt < k_tiles; ++kt)
          b.matmul(acc, b.tile(lhs_t, kt, 128, 128), b.tile(rhs_tiles, kt, 128, 512), kt > 0);
        Operand res = k.fresh("res", 128, 512);
        k.copy(acc, res);
        b.store(b.hbm_rows(out, 128, 512), res);
      }
    }
  }
}

// rmsnorm_matmul as nkibench.md describes it: x is loaded twice per row tile.
inline void rmsnorm_matmul(TraceBuilder& b, int m_tiles = 32, int k_size = 1024, int n_size = 2048) {
  Kernel k(b);
  const int k_tiles = k_size / 128;
  auto x = b.hbm("x", uint64_t(m_tiles) * 128 * k_size * 4, true);
  auto w = b.hbm("w", uint64_t(k_size) * n_size * 4, true);
  auto out = b.hbm("out", uint64_t(m_tiles) * 128 * n_size * 4, false, true);
  Operand ident = load_identity(k);
  auto w_tiles = b.sbuf("w_tiles", 128, uint64_t(n_size) * 4, k_tiles);
  for (int kt = 0; kt < k_tiles; ++kt) b.load(b.tile(w_tiles, kt, 128, n_size), b.hbm_rows(w, 128, n_size));
  for (int m = 0; m < m_tiles; ++m) {
    Operand x_tile = k.fresh("x_tile", 128, k_size);
    b.load(x_tile, b.hbm_rows(x, 128, k_size));
    Operand squares = k.fresh("squares", 128, k_size), total = k.fresh("total", 128, 1);
    Operand inv_rms = k.fresh("inv_rms", 128, 1);
    k.act(x_tile, squares);
    k.reduce(squares, total);
    k.act(total, inv_rms);
    Operand x_again = k.fresh("x_again", 128, k_size), x_norm = k.fresh("x_norm", 128, k_size);
    b.load(x_again, b.hbm_rows(x, 128, k_size));
    k.tensor_scalar(x_again, x_norm, &inv_rms);
    auto x_t = b.sbuf("x_t", 128, 512, k_tiles);
    for (int kt = 0; kt < k_tiles; ++kt) {
      Operand t_psum = k.fresh_psum("t_psum", 128, 128);
      k.pe_transpose(Kernel::slice(x_norm, 128), t_psum, ident);
      k.copy(t_psum, b.tile(x_t, kt, 128, 128));
    }
    for (int n = 0; n < n_size / 512; ++n) {
      Operand acc = k.fresh_psum("acc", 128, 512);
      for (int kt = 0; kt < k_tiles; ++kt)
        b.matmul(acc, b.tile(x_t, kt, 128, 128), b.tile(w_tiles, kt, 128, 512), kt > 0);
      Operand res = k.fresh("res", 128, 512);
      k.copy(acc, res);
      b.store(b.hbm_rows(out, 128, 512), res);
    }
  }
}

// Second loop nest of the softmax kernels: exp(x - max), row sum, reciprocal, scale.
inline Operand softmax_rows(Kernel& k, const Operand& scores, const Operand& neg_max, uint32_t n) {
  Operand probs = k.fresh("probs", 128, n), row_sum = k.fresh("row_sum", 128, 1);
  Operand inv_sum = k.fresh("inv_sum", 128, 1), res = k.fresh("res", 128, n);
  k.act(scores, probs, &neg_max);
  k.reduce(probs, row_sum);
  k.reciprocal(row_sum, inv_sum);
  k.tensor_scalar(probs, res, &inv_sum);
  return res;
}

inline void bmm_softmax(TraceBuilder& b, int batch = 16, int m_size = 4096, int k_size = 64,
                        int n_size = 4096) {
  Kernel k(b);
  const int m_tiles = m_size / 128, n_chunks = n_size / 512;
  auto lhs = b.hbm("lhs", uint64_t(batch) * m_size * k_size * 4, true);
  auto rhs = b.hbm("rhs", uint64_t(batch) * k_size * n_size * 4, true);
  auto out = b.hbm("out", uint64_t(batch) * m_size * n_size * 4, false, true);
  Operand ident = load_identity(k);
  for (int bi = 0; bi < batch; ++bi) {
    Operand rhs_tile = k.fresh("rhs_tile", uint16_t(k_size), n_size);
    b.load(rhs_tile, b.hbm_rows(rhs, uint16_t(k_size), n_size));
    auto scores = b.sbuf("scores", 128, uint64_t(n_size) * 4, m_tiles);
    auto neg_max = b.sbuf("neg_max", 128, 4, m_tiles);
    for (int m = 0; m < m_tiles; ++m) {
      Operand lhs_tile = k.fresh("lhs_tile", 128, k_size);
      b.load(lhs_tile, b.hbm_rows(lhs, 128, k_size));
      Operand t_psum = k.fresh_psum("t_psum", uint16_t(k_size), 128);
      k.pe_transpose(lhs_tile, t_psum, ident);
      Operand lhs_t = k.fresh("lhs_t", uint16_t(k_size), 128);
      k.copy(t_psum, lhs_t);
      Operand chunk_max = k.fresh("chunk_max", 128, n_chunks);
      for (int n = 0; n < n_chunks; ++n) {
        Operand acc = k.fresh_psum("acc", 128, 512);
        b.matmul(acc, lhs_t, Kernel::slice(rhs_tile, 512), false);
        Operand s = b.tile(scores, m, 128, 512);
        k.copy(acc, s);
        k.reduce(s, Kernel::slice(chunk_max, 1));
      }
      k.reduce(chunk_max, b.tile(neg_max, m, 128, 1));
    }
    for (int m = 0; m < m_tiles; ++m) {
      Operand res = softmax_rows(k, b.tile(scores, m, 128, n_size), b.tile(neg_max, m, 128, 1), n_size);
      b.store(b.hbm_rows(out, 128, n_size), res);
    }
  }
}

inline void gqa_full(TraceBuilder& b, int seq = 4096, int q_heads = 16, int kv_heads = 8, int d = 128) {
  Kernel k(b);
  const int q_tiles = seq / 128, kv_tiles = seq / 128, n_chunks = seq / 512;
  auto q = b.hbm("q", uint64_t(seq) * q_heads * d * 4, true);
  auto kk = b.hbm("k", uint64_t(seq) * kv_heads * d * 4, true);
  auto v = b.hbm("v", uint64_t(seq) * kv_heads * d * 4, true);
  auto out = b.hbm("out", uint64_t(seq) * q_heads * d * 4, false, true);
  Operand ident = load_identity(k);
  for (int h = 0; h < q_heads; ++h) {
    Operand k_t = k.fresh("k_t", uint16_t(d), seq);
    auto v_tiles = b.sbuf("v_tiles", 128, uint64_t(d) * 4, kv_tiles);
    for (int t = 0; t < kv_tiles; ++t) {
      Operand k_tile = k.fresh("k_tile", 128, d);
      b.load(k_tile, b.hbm_rows(kk, 128, d));
      Operand t_psum = k.fresh_psum("t_psum", uint16_t(d), 128);
      k.pe_transpose(k_tile, t_psum, ident);
      k.copy(t_psum, Kernel::slice(k_t, 128));
      b.load(b.tile(v_tiles, t, 128, d), b.hbm_rows(v, 128, d));
    }
    auto scores = b.sbuf("scores", 128, uint64_t(seq) * 4, q_tiles);
    auto neg_max = b.sbuf("neg_max", 128, 4, q_tiles);
    for (int qt = 0; qt < q_tiles; ++qt) {
      Operand q_tile = k.fresh("q_tile", 128, d);
      b.load(q_tile, b.hbm_rows(q, 128, d));
      Operand t_psum = k.fresh_psum("t_psum", uint16_t(d), 128);
      k.pe_transpose(q_tile, t_psum, ident);
      Operand q_t = k.fresh("q_t", uint16_t(d), 128);
      k.copy(t_psum, q_t);
      Operand chunk_max = k.fresh("chunk_max", 128, n_chunks);
      for (int n = 0; n < n_chunks; ++n) {
        Operand acc = k.fresh_psum("acc", 128, 512);
        b.matmul(acc, q_t, Kernel::slice(k_t, 512), false);
        Operand s = b.tile(scores, qt, 128, 512);
        k.tensor_scalar(acc, s);
        k.reduce(s, Kernel::slice(chunk_max, 1));
      }
      k.reduce(chunk_max, b.tile(neg_max, qt, 128, 1));
    }
    for (int qt = 0; qt < q_tiles; ++qt) {
      Operand probs = softmax_rows(k, b.tile(scores, qt, 128, seq), b.tile(neg_max, qt, 128, 1), seq);
      Operand acc = k.fresh_psum("acc", 128, d);
      for (int t = 0; t < kv_tiles; ++t) {
        Operand p_psum = k.fresh_psum("p_psum", 128, 128);
        k.pe_transpose(Kernel::slice(probs, 128), p_psum, ident);
        Operand p_t = k.fresh("p_t", 128, 128);
        k.copy(p_psum, p_t);
        b.matmul(acc, p_t, b.tile(v_tiles, t, 128, d), t > 0);
      }
      Operand res = k.fresh("res", 128, d);
      k.copy(acc, res);
      b.store(b.hbm_rows(out, 128, d), res);
    }
  }
}

// One x @ W pass of swiglu: transposes of an x row tile, then K-tile accumulation per 512 chunk;
// `each` receives the PSUM result of every chunk.
inline void swiglu_pass(Kernel& k, uint32_t x, uint32_t w_tiles, int k_tiles, int n_size,
                        const Operand& ident, int m, const std::function<void(int, const Operand&)>& each) {
  TraceBuilder& b = k.b;
  Operand rows = k.fresh("rows", 128, k_tiles * 128);
  b.load(rows, b.hbm_rows(x, 128, k_tiles * 128));
  auto x_t = b.sbuf("x_t", 128, 512, k_tiles);
  for (int kt = 0; kt < k_tiles; ++kt) {
    Operand t_psum = k.fresh_psum("t_psum", 128, 128);
    k.pe_transpose(Kernel::slice(rows, 128), t_psum, ident);
    k.copy(t_psum, b.tile(x_t, kt, 128, 128));
  }
  for (int n = 0; n < n_size / 512; ++n) {
    Operand acc = k.fresh_psum("acc", 128, 512);
    for (int kt = 0; kt < k_tiles; ++kt)
      b.matmul(acc, b.tile(x_t, kt, 128, 128), b.tile(w_tiles, kt, 128, 512), kt > 0);
    each(n, acc);
  }
  (void)m;
}

inline void swiglu(TraceBuilder& b, int m_tiles = 32, int k_size = 1024, int n_size = 3072) {
  Kernel k(b);
  const int k_tiles = k_size / 128, n_tiles = n_size / 128;
  auto x = b.hbm("x", uint64_t(m_tiles) * 128 * k_size * 4, true);
  auto w_up = b.hbm("w_up", uint64_t(k_size) * n_size * 4, true);
  auto w_down = b.hbm("w_down", uint64_t(n_size) * k_size * 4, true);
  auto w_gate = b.hbm("w_gate", uint64_t(k_size) * n_size * 4, true);
  auto out = b.hbm("out", uint64_t(m_tiles) * 128 * k_size * 4, false, true);
  auto hidden = b.hbm("hidden", uint64_t(m_tiles) * 128 * n_size * 4, false, false);
  Operand ident = load_identity(k);
  Operand zero_bias = k.fresh("zero_bias", 128, 1);
  b.op(Opcode::Memset, Engine::Vector, {}, {zero_bias});
  auto gate = b.sbuf("gate", 128, uint64_t(n_size) * 4, m_tiles);
  auto wg_tiles = b.sbuf("wg_tiles", 128, uint64_t(n_size) * 4, k_tiles);
  for (int kt = 0; kt < k_tiles; ++kt) b.load(b.tile(wg_tiles, kt, 128, n_size), b.hbm_rows(w_gate, 128, n_size));
  for (int m = 0; m < m_tiles; ++m)
    swiglu_pass(k, x, wg_tiles, k_tiles, n_size, ident, m, [&](int n, const Operand& acc) {
      (void)n;
      k.copy(acc, b.tile(gate, m, 128, 512));
    });
  auto wu_tiles = b.sbuf("wu_tiles", 128, uint64_t(n_size) * 4, k_tiles);
  for (int kt = 0; kt < k_tiles; ++kt) b.load(b.tile(wu_tiles, kt, 128, n_size), b.hbm_rows(w_up, 128, n_size));
  for (int m = 0; m < m_tiles; ++m)
    swiglu_pass(k, x, wu_tiles, k_tiles, n_size, ident, m, [&](int n, const Operand& acc) {
      (void)n;
      Operand up = k.fresh("up", 128, 512), e = k.fresh("e", 128, 512), denom = k.fresh("denom", 128, 512);
      Operand inv = k.fresh("inv", 128, 512), silu = k.fresh("silu", 128, 512), h = k.fresh("h", 128, 512);
      Operand g = b.tile(gate, m, 128, 512);
      k.copy(acc, up);
      k.act(g, e, &zero_bias);
      k.tensor_scalar(e, denom);
      k.reciprocal(denom, inv);
      k.tensor_tensor(g, inv, silu);
      k.tensor_tensor(silu, up, h);
      b.store(b.hbm_rows(hidden, 128, 512), h);
    });
  auto wd_tiles = b.sbuf("wd_tiles", 128, uint64_t(k_size) * 4, n_tiles);
  for (int t = 0; t < n_tiles; ++t) b.load(b.tile(wd_tiles, t, 128, k_size), b.hbm_rows(w_down, 128, k_size));
  for (int m = 0; m < m_tiles; ++m)
    swiglu_pass(k, hidden, wd_tiles, n_tiles, k_size, ident, m, [&](int n, const Operand& acc) {
      (void)n;
      Operand res = k.fresh("res", 128, 512);
      k.copy(acc, res);
      b.store(b.hbm_rows(out, 128, 512), res);
    });
}

struct SyntheticKernel {
  std::string name;
  std::function<void(TraceBuilder&)> build;
};

inline std::vector<SyntheticKernel> synthetic_kernels() {
  return {
      {"swiglu", [](TraceBuilder& b) { swiglu(b); }},
      {"matmul", [](TraceBuilder& b) { matmul(b); }},
      {"gqa_full", [](TraceBuilder& b) { gqa_full(b); }},
      {"rmsnorm_matmul", [](TraceBuilder& b) { rmsnorm_matmul(b); }},
      {"bmm_softmax", [](TraceBuilder& b) { bmm_softmax(b); }},
      {"adamw", [](TraceBuilder& b) { adamw(b); }},
      {"silu", [](TraceBuilder& b) { silu(b); }},
  };
}

}  // namespace fidelity
