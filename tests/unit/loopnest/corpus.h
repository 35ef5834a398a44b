// Test support: every kernel the repository holds, with the arguments it is lifted for.
//   nkibench/kernels, nkibench/styles/<style>/ and bench/fidelity_kernels: the task reference
//   (found by file name, as `accelopt parse --emit loops` does); tests/golden/rewrite: the
//   `# inputs:` first line; tests/kernels: the shapes their numerics tests use; fidelity/ (the
//   fidelity suite): its references, when it is there; tests/kernels/corpus: `<name>.ref.py`.
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/arg_specs.h"
#include "eval/profile_run.h"
#include "loopnest/arg_spec.h"
#include "support/test_paths.h"

namespace loopnest_test {

namespace fs = std::filesystem;

inline std::string source_dir() { return ACCELOPT_SOURCE_DIR; }

inline std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CorpusKernel {
  std::string path;  // relative to the source dir
  std::string text;
  std::string reference;  // absolute path, "" when the arguments come from elsewhere
  std::vector<loopnest::ArgSpec> args;
  bool test_kernel = false;  // small: runs with numerics in a unit test
};

inline std::vector<loopnest::ArgSpec> arrays(std::vector<std::vector<int64_t>> shapes) {
  std::vector<loopnest::ArgSpec> out;
  for (auto& s : shapes) {
    loopnest::ArgSpec a;
    a.shape = s;
    out.push_back(a);
  }
  return out;
}

// Shapes of tests/kernels/*.py as tests/unit/nkilib/kernel_numerics_test.cpp runs them.
inline const std::map<std::string, std::vector<loopnest::ArgSpec>>& test_kernel_args() {
  static const std::map<std::string, std::vector<loopnest::ArgSpec>> args = {
      // Moves printed in a helper's body (helper_bodies_test.cpp): a ragged last block (200 rows).
      {"helper_body_rows.py", arrays({{200, 512}, {200, 512}})},
      {"helper_body_rows_api.py", arrays({{256, 1024}, {256, 1024}})},
      {"helper_body_mixed_args.py", arrays({{256, 512}, {256, 512}})},
      {"add_slices.py", arrays({{256, 512}, {256, 512}})}, {"masked_blocks.py", arrays({{200, 64}})},
      {"silu.py", arrays({{128, 256}})},                   {"softmax_rows.py", arrays({{128, 1024}})},
      {"matmul.py", arrays({{128, 256}, {256, 512}})},     {"scan.py", arrays({{128, 64}, {128, 64}})},
      {"newer_api.py", arrays({{128, 128}, {128, 256}})}, {"mgrid_broadcast.py", arrays({{128, 64}, {64}})},
      {"silu_row_views.py", arrays({{128, 2, 2048}})},     {"block_accumulator.py", arrays({{256, 512}, {4, 512}})},
      {"staged_softmax_blocks.py", arrays({{2, 512, 256}})}, {"staged_softmax_tiles.py", arrays({{2, 512, 256}})},
      {"attention_pv.py", arrays({{128, 256}, {256, 64}})}, {"prep_matmul.py", arrays({{256, 64}, {64, 512}})},
      {"scratch_rows_tiles.py", arrays({{2, 128, 256}, {2, 128, 512}})},
      {"scratch_rows_grid.py", arrays({{2, 128, 256}, {2, 128, 512}})},
      {"scratch_rows_api.py", arrays({{2, 128, 256}, {2, 128, 512}})},
      {"two_moments_tiles.py", arrays({{200, 256}, {200, 256}, {200, 256}, {200, 256}})},
      {"two_moments_grid.py", arrays({{200, 256}, {200, 256}, {200, 256}, {200, 256}})},
      {"two_moments_api.py", arrays({{200, 256}, {200, 256}, {200, 256}, {200, 256}})},
      {"column_outer_matmul_tiles.py", arrays({{256, 256}, {256, 1024}})},
      {"column_outer_matmul_grid.py", arrays({{256, 256}, {256, 1024}})},
      {"column_outer_matmul_api.py", arrays({{256, 256}, {256, 1024}})},
      {"norm_rows_deferred.py", arrays({{2, 128, 256}, {2, 128, 512}})},
      {"norm_rows_view.py", arrays({{2, 128, 256}, {2, 128, 512}})},
      {"first_term_sum.py", arrays({{4, 128, 512}, {4, 128, 512}})},
      {"listed_accumulators.py", arrays({{4, 256, 512}, {4, 256, 512}})},
      {"param_chunk_rows.py", arrays({{128, 2048}})},
      {"module_chunk_rows.py", arrays({{128, 2048}})},
      {"masked_scan_rows.py", arrays({{192, 1024}, {192, 1024}})},
      {"masked_softmax_rows.py", arrays({{192, 512}})},
      {"colblock_matmul_tiles.py", arrays({{2, 128, 2, 128}, {2, 128, 2048}})},
      {"colblock_matmul_grid.py", arrays({{2, 128, 2, 128}, {2, 128, 2048}})},
      {"colblock_matmul_api.py", arrays({{2, 128, 2, 128}, {2, 128, 2048}})},
      {"reload_matmul_tiles.py", arrays({{256, 256}, {2, 128, 1024}})},
      {"reload_matmul_grid.py", arrays({{256, 256}, {2, 128, 1024}})},
      {"reload_matmul_api.py", arrays({{256, 256}, {2, 128, 1024}})},
      {"scan_rows_tiles.py", arrays({{256, 1024}, {256, 1024}})},
      {"scan_rows_grid.py", arrays({{256, 1024}, {256, 1024}})},
      {"scan_rows_api.py", arrays({{256, 1024}, {256, 1024}})},
      {"chunk_scan_tiles.py", arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}})},
      {"chunk_scan_grid.py", arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}})},
      {"chunk_scan_api.py", arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}})},
      {"state_outer_scan_api.py", arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}})},
      {"state_outer_scan_grid.py", arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}})},
      {"state_outer_scan_tiles.py", arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}})},
      {"state_outer_rowacc.py", arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}})},
      {"state_outer_rowacc_api.py", arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}})},
      // A helper's guard on a host value it bound from its argument (opened_guard_binding_test.cpp).
      {"batch_head_guard_rows.py", arrays({{3, 512, 256}, {3, 128, 256}})},
      {"batch_head_guard_api.py", arrays({{3, 512, 256}, {3, 128, 256}})},
      // Host counters (host_counter_test.cpp).
      {"counter_list_closure_rows.py", arrays({{768, 256}, {384, 256}})},
      {"counter_nonlocal_api.py", arrays({{384, 768}})},
      {"counter_plain_rows.py", arrays({{512, 256}})},
      {"ring_softmax_nisa.py", arrays({{512, 1024}})},
      {"ring_softmax_api.py", arrays({{512, 1024}})},
      // Reused tiles privatized (privatize_buffer_test.cpp): a reduce_res output, halves covering a tile.
      {"reused_softmax_nisa.py", arrays({{512, 1024}})},
      {"reused_softmax_api.py", arrays({{512, 1024}})},
      {"stacked_halves_nisa.py", arrays({{64, 2048}, {64, 2048}})},
      {"stacked_halves_api.py", arrays({{64, 2048}, {64, 2048}})},
      // A kernel compiled without the middle end (middle_end_test.cpp).
      {"program_order_rows.py", arrays({{1024, 512}, {1024, 512}})},
      {"program_order_grid.py", arrays({{1024, 512}, {1024, 512}})},
      // Scratch tiles shared by a main loop and its tail, or by two phases (privatize_buffer_test.cpp).
      {"scratch_tail_nisa.py", arrays({{320, 512}, {320, 512}})},
      {"scratch_phases_api.py", arrays({{512, 256}})},
      {"store_rows_tiles.py", arrays({{2, 256, 64}, {2, 64, 2048}})},
      {"store_rows_grid.py", arrays({{2, 256, 64}, {2, 64, 2048}})},
      {"store_rows_api.py", arrays({{2, 256, 64}, {2, 64, 2048}})},
      {"store_rows_jammed_tiles.py", arrays({{2, 512, 64}, {2, 64, 2048}})},
      {"store_rows_jammed_grid.py", arrays({{2, 512, 64}, {2, 64, 2048}})},
      {"store_rows_jammed_api.py", arrays({{2, 512, 64}, {2, 64, 2048}})},
      {"stores_column_outer_tiles.py", arrays({{2, 256, 64}, {2, 64, 2048}})},
      {"stores_column_outer_api.py", arrays({{2, 256, 64}, {2, 64, 2048}})},
      {"helper_rows_matmul.py", arrays({{256, 256}, {2, 128, 640}})},
      {"transpose_per_block.py", arrays({{256, 256}, {2, 128, 1024}})},
      {"flat_transpose_matmul.py", arrays({{256, 256}, {256, 1024}})},
      {"transpose_per_column_api.py", arrays({{256, 256}, {256, 1024}})},
      {"nested_transpose_rows.py", arrays({{256, 256}, {256, 1024}})},
      {"nested_transpose_rows_isa.py", arrays({{256, 256}, {256, 1024}})},
      {"nested_transpose_rows_api.py", arrays({{256, 256}, {256, 1024}})},
      {"state_sum_blocks_api.py", arrays({{4, 256, 512}, {4, 256, 512}})},
      {"transpose_scale_tiles.py", arrays({{256, 256}, {2, 128, 1024}, {256, 1}})},
      {"transpose_scale_grid.py", arrays({{256, 256}, {2, 128, 1024}, {256, 1}})},
      {"transpose_scale_api.py", arrays({{256, 256}, {2, 128, 1024}, {256, 1}})},
      {"transpose_multiply_rows.py", arrays({{256, 256}, {2, 128, 1024}, {256, 1}})},
      {"inline_load_rows.py", arrays({{256, 256}, {2, 128, 1024}})},
      {"chunked_rows_comprehension.py", arrays({{256, 64}, {64, 512}, {512, 64}})},
      {"chunk_logits_softmax_api.py", arrays({{256, 64}, {64, 2048}})},
      {"chunk_logits_softmax.py", arrays({{256, 64}, {64, 2048}})},
      {"row_max_chunks.py", arrays({{64, 256}, {64, 2048}})},
      {"row_max_chunks_api.py", arrays({{64, 256}, {64, 2048}})},
      {"row_sum_chunks_grid.py", arrays({{256, 1024}})},
      {"multibuffer_rows.py", arrays({{512, 256}, {128, 1}})},
      {"carried_scratch_rows.py", arrays({{512, 256}})},
      {"block_ndarray_rows.py", arrays({{2, 128, 2, 128}, {2, 128, 1024}})},
      {"nested_helper_rows.py", arrays({{256, 256}, {2, 128, 1024}})},
      {"tuple_helper_rows.py", arrays({{128, 2048}, {64, 2048}, {64, 2048}})},
      {"paired_halves_api.py", arrays({{128, 2048}, {64, 2048}})},
      {"halves_gathered_ap_api.py", arrays({{128, 2048}, {64, 2048}})},
      {"flat_row_chunks_api.py", arrays({{128, 4, 384}})},
      {"paired_halves_unpacked_api.py", arrays({{128, 2048}, {64, 2048}})},
      {"slotted_pv_blocks.py", arrays({{128, 2048}, {2048, 64}})},
      {"probs_rows_nl_transpose.py", arrays({{256, 512}, {512, 64}})},
      {"softmax_named_rows.py", arrays({{256, 512}})},
      {"softmax_dst_first_rows.py", arrays({{256, 512}})},
      {"softmax_dst_first_chunks.py", arrays({{256, 512}})},
      {"reloaded_operand_rows.py", arrays({{200, 512}})},
      {"row_broadcast_grid.py", arrays({{256, 512}, {4, 512}})},
      {"row_broadcast_api.py", arrays({{256, 512}, {4, 512}})},
      {"row_broadcast_free_dim.py", arrays({{256, 512}, {4, 512}})},
      {"row_broadcast_wide.py", arrays({{256, 2048}, {4, 2048}})},
      {"row_broadcast_module_width.py", arrays({{256, 2048}, {4, 2048}})},
      {"row_broadcast_on_chip_wide.py", arrays({{256, 2048}, {4, 2048}})},
      {"row_broadcast_launch_default.py", arrays({{256, 2048}, {4, 2048}})},
      {"row_broadcast_helper_default_api.py", arrays({{256, 2048}, {4, 2048}})},
      {"cdiv_chunk_rows.py", arrays({{128, 2048}})},
      {"expr_chunk_rows.py", arrays({{128, 2560}})},
      {"nonpow2_chunk_rows.py", arrays({{128, 7168}})},
      {"scaled_exp_bias_rows.py", arrays({{256, 512}})},
      {"state_inner_product_rows.py", arrays({{256, 512}, {256, 512}, {256, 4}})},
      {"ragged_chunk_rows.py", arrays({{128, 2560}})},
      {"ragged_chunk_rows_coarsened.py", arrays({{128, 4096}})},
      {"ragged_chunk_rows_literal_window.py", arrays({{128, 4096}})},
      {"local_chunk_scan_grid.py", arrays({{256, 3072}, {4, 3072}})},
      {"psum_operand_rows_api.py", arrays({{2, 128, 2, 128}, {2, 128, 1024}})},
      {"scaled_softmax_rows.py", arrays({{256, 512}})},
      {"scaled_softmax_dst_first_rows.py", arrays({{256, 512}})},
      {"shared_row_operand.py", arrays({{256, 256}, {2, 128, 1024}, {2, 128, 1024}})},
      {"accumulate_rows.py", arrays({{256, 512}, {4, 512}})},
      {"sigmoid_times_rows.py", arrays({{128, 4, 1024}})},
      {"scaled_exp_rows.py", arrays({{256, 512}, {256, 4}})},
      {"impl_wrapper_rows.py", arrays({{200, 512}})},
      {"impl_wrapper_view.py", arrays({{200, 512}, {200}})},
      {"spmd_launch_blocks.py", arrays({{256, 256}, {256, 1024}})},
      {"staged_passes_shared.py", arrays({{256, 1024}})},
      {"staged_computed_store.py", arrays({{256, 1024}})},
      {"transposed_operand_grid.py", arrays({{2, 256, 64}, {2, 64, 512}})},
      {"staged_row_passes.py", arrays({{256, 1024}})},
      {"staged_tail_passes.py", arrays({{480, 1024}, {480, 1024}})},
      {"colblock_first_matmul.py", arrays({{128, 2, 512}, {128, 2, 4096}})},
      {"stepped_chunks.py", arrays({{128, 4096}, {128, 4096}})},
      {"stepped_chunks_grid.py", arrays({{128, 4096}, {128, 4096}})},
      {"rope_halves_tiles.py", arrays({{128, 8192}, {64, 8192}, {64, 8192}})},
      {"rope_halves_grid.py", arrays({{128, 8192}, {64, 8192}, {64, 8192}})},
      {"rope_halves_api.py", arrays({{128, 8192}, {64, 8192}, {64, 8192}})},
      {"momentum_rows96_tiles.py", arrays({{192, 512}, {192, 512}, {192, 512}})},
      {"momentum_rows96_grid.py", arrays({{192, 512}, {192, 512}, {192, 512}})},
      {"momentum_rows96_api.py", arrays({{192, 512}, {192, 512}, {192, 512}})},
      {"rope_ragged_tiles.py", arrays({{128, 8192}, {64, 8192}, {64, 8192}})},
      {"rope_ragged_grid.py", arrays({{128, 8192}, {64, 8192}, {64, 8192}})},
      {"rope_ragged_api.py", arrays({{128, 8192}, {64, 8192}, {64, 8192}})},
      {"half_row_blocks.py", arrays({{256, 512}, {256, 4}, {4, 512}})},
      {"half_row_attention.py", arrays({{2, 128, 64}, {128, 64}, {128, 64}})},
      {"half_row_rmsnorm_api.py", arrays({{256, 512}, {1, 512}})},
      {"key_blocks_per_query.py", arrays({{2, 128, 128}, {2, 4, 128, 128}})},
      {"key_blocks_psum_copy.py", arrays({{2, 128, 128}, {2, 4, 128, 128}})},
      {"fold_named_scalars.py", arrays({{256, 512}})},
      {"fold_rebound_scalar.py", arrays({{128, 512}})},
      {"hidden_chunks_sum.py", arrays({{256, 128}, {256, 1024}, {1024, 256}})},
      {"hidden_chunks_exp.py", arrays({{256, 128}, {256, 1024}, {1024, 256}})},
      {"max_tree_rows.py", arrays({{256, 1024}})},
      {"softmax_rows_vector_sum.py", arrays({{256, 512}})},
      {"list_row_softmax_api.py", arrays({{256, 1024}})},
      {"list_row_softmax.py", arrays({{256, 1024}})},
      {"prefetch_rows_guarded.py", arrays({{512, 256}, {128, 256}})},
      {"prefetch_rows_epilogue.py", arrays({{512, 256}, {128, 256}})},
      {"prefetch_rows_named.py", arrays({{512, 256}, {128, 256}})},
      {"prefetch_rows_api.py", arrays({{512, 256}, {128, 256}})},
      {"prefetch_ragged.py", arrays({{448, 256}, {128, 256}})},
      {"prefetch_ragged_api.py", arrays({{448, 256}, {128, 256}})},
      {"prefetch_flat_tiles.py", arrays({{448, 256}, {128, 256}})},
      {"prefetch_bcast.py", arrays({{128, 256}, {4, 256}})},
      {"grouped_heads_kv.py", arrays({{4, 128, 64}, {2, 128, 64}, {2, 128, 64}})},
      {"kv_group_rows_jammed.py", arrays({{2, 128, 2, 128}, {256, 128}, {256, 128}})},
      {"rows_jammed_nests.py", arrays({{2, 128, 2, 128}, {512, 128}, {512, 128}})},
      {"staged_rows_pv.py", arrays({{2, 2, 128, 512}, {512, 128}})},
      {"staged_rows_pv_api.py", arrays({{1, 4, 128, 512}, {512, 128}})},
      {"grouped_heads_kv_api.py", arrays({{4, 128, 64}, {2, 128, 64}, {2, 128, 64}})},
      {"group_query_tiles.py", arrays({{4, 256, 64}, {2, 128, 64}, {2, 128, 64}})},
      {"group_query_tiles_api.py", arrays({{4, 256, 64}, {2, 128, 64}, {2, 128, 64}})},
      {"group_query_tiles_rescaled.py", arrays({{4, 256, 64}, {2, 128, 64}, {2, 128, 64}, {4, 128, 1}})},
      {"group_query_tiles_shifted.py", arrays({{4, 256, 64}, {3, 128, 64}, {3, 128, 64}})},
      // A nest under compile-time guards (decided_guard_test.cpp); the tails at N = 1280 (the guard holds).
      {"guarded_cols_plain.py", arrays({{128, 256}, {128, 1024}})},
      {"guarded_cols_whole.py", arrays({{128, 256}, {128, 1024}})},
      {"guarded_cols_inner.py", arrays({{128, 256}, {128, 1024}})},
      {"guarded_cols_tail.py", arrays({{128, 256}, {128, 1280}})},
      {"guarded_cols_plain_api.py", arrays({{128, 256}, {128, 1024}})},
      {"guarded_cols_whole_api.py", arrays({{128, 256}, {128, 1024}})},
      {"guarded_cols_inner_api.py", arrays({{128, 256}, {128, 1024}})},
      {"guarded_cols_tail_api.py", arrays({{128, 256}, {128, 1280}})},
      {"guarded_transpose_rows.py", arrays({{256, 256}, {256, 1024}})},
      {"guarded_transpose_rows_api.py", arrays({{256, 256}, {256, 1024}})},
      {"guarded_nests_plain.py", arrays({{256, 512}, {256, 512}})},
      {"guarded_nests_whole.py", arrays({{256, 512}, {256, 512}})},
      {"guarded_nests_inner.py", arrays({{256, 512}, {256, 512}})},
      {"guarded_nests_plain_api.py", arrays({{256, 512}, {256, 512}})},
      {"guarded_nests_whole_api.py", arrays({{256, 512}, {256, 512}})},
      {"guarded_nests_inner_api.py", arrays({{256, 512}, {256, 512}})},
      // Through a failing if's else branch (decided_guard_test.cpp).
      {"guarded_cols_else.py", arrays({{128, 256}, {128, 1024}})},
      {"guarded_cols_else_api.py", arrays({{128, 256}, {128, 1024}})},
      {"guarded_cols_tail_else.py", arrays({{128, 256}, {128, 1280}})},
      {"guarded_cols_tail_else_api.py", arrays({{128, 256}, {128, 1280}})},
      {"guarded_tail_ktiles.py", arrays({{128, 2, 256}, {128, 2, 1280}})},
      {"guarded_tail_ktiles_api.py", arrays({{128, 2, 256}, {128, 2, 1280}})},
      // A name the loop's body binds again (hoist_rebound_test.cpp): no hoist site that does not print back.
      {"rebound_tail.py", arrays({{128, 256}, {128, 1280}})},
      {"rebound_tail_api.py", arrays({{128, 256}, {128, 1280}})},
      {"rebound_halves.py", arrays({{128, 256}, {128, 1024}})},
      {"rebound_halves_api.py", arrays({{128, 256}, {128, 1024}})},
      {"renamed_halves.py", arrays({{128, 256}, {128, 1024}})},
      {"renamed_halves_api.py", arrays({{128, 256}, {128, 1024}})},
      // What the folds' merged instructions carry (fold_attrs_test.cpp).
      {"fold_integer_steps.py", arrays({{128, 512}})},
      {"fold_masked_steps.py", arrays({{192, 512}})},
      {"fold_operand_order.py", arrays({{256, 512}, {256, 512}})},
      {"fold_attrs_api.py", arrays({{256, 512}, {256, 1}})},
      {"fold_rows_reduce_res.py", arrays({{128, 2048}})},
  };
  return args;
}

inline std::vector<std::string> py_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.path().extension() == ".py") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline bool is_kernel(const std::string& text) {
  // `@jit` alone: the decorator imported by name (`from neuronxcc.nki import jit`).
  return text.find("@nki.jit") != std::string::npos || text.find("\n@jit") != std::string::npos || text.find("@nki.baremetal") != std::string::npos || text.find("def kernel(") != std::string::npos ||
         text.find("def optimized_kernel(") != std::string::npos;
}

inline std::vector<CorpusKernel> corpus() {
  std::vector<CorpusKernel> out;
  std::string root = source_dir();
  auto add = [&](const std::string& abs, std::vector<loopnest::ArgSpec> args, std::string reference, bool small) {
    CorpusKernel k;
    k.path = fs::relative(abs, root).string();
    k.text = read(abs);
    if (!is_kernel(k.text)) return;
    k.args = std::move(args);
    k.reference = std::move(reference);
    k.test_kernel = small;
    out.push_back(std::move(k));
  };
  std::map<std::string, std::vector<loopnest::ArgSpec>> by_reference;
  auto from_reference = [&](const std::string& abs) {
    std::string ref = bench::reference_for_kernel(abs);
    if (ref.empty()) {
      // bench/fidelity_kernels/silu.py: the task's reference by its name.
      std::string stem = fs::path(abs).stem().string();
      for (const auto& r : py_files(root + "/nkibench/reference")) {
        std::string rs = fs::path(r).stem().string();  // <task>_<config>, the config starting M4096, B16, ...
        if (rs.rfind(stem + "_", 0) == 0 && rs.size() > stem.size() + 1 && std::isupper(rs[stem.size() + 1])) ref = r;
      }
    }
    if (ref.empty()) return;
    if (!by_reference.count(ref)) by_reference[ref] = eval::reference_arg_specs(ref, read(ref));
    add(abs, by_reference[ref], ref, false);
  };
  for (const auto& f : py_files(root + "/nkibench/kernels")) from_reference(f);
  for (const auto& f : py_files(root + "/nkibench/styles")) from_reference(f);
  for (const auto& f : py_files(root + "/bench/fidelity_kernels")) from_reference(f);
  for (const auto& f : py_files(root + "/tests/kernels")) {
    // tests/kernels/corpus/: other authors' kernels, each with its reference `<name>.ref.py`.
    if (fs::path(f).parent_path().filename() == "corpus") {
      if (f.size() < 7 || f.compare(f.size() - 7, 7, ".ref.py") != 0) from_reference(f);
      continue;
    }
    auto it = test_kernel_args().find(fs::path(f).filename().string());
    if (it != test_kernel_args().end()) add(f, it->second, "", true);
  }
  for (const auto& f : py_files(root + "/tests/golden/rewrite")) {
    std::string text = read(f);
    if (fs::path(f).parent_path().filename() == "kernels") {
      from_reference(f);
      continue;
    }
    add(f, loopnest::arg_specs_from_header(text), "", true);
  }
  for (const auto& f : py_files(root + "/tests/golden/bench/published_layout/kernels")) from_reference(f);
  add(root + "/examples/add/kernel.py", eval::reference_arg_specs(root + "/examples/add/reference.py",
                                                                  read(root + "/examples/add/reference.py")),
      root + "/examples/add/reference.py", false);
  for (const auto& f : py_files(root + "/fidelity")) from_reference(f);
  return out;
}

}  // namespace loopnest_test
