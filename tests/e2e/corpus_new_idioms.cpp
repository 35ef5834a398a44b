// The corpus kernels written on 2 Dec (sessions 6 and 7, and the SPMD launches of session 8) and on 3 Dec
// (session 9, the p9_ kernels; session 10, the p10_ kernels; session 11, the p11_ kernels; session
// 12, the p12_ kernels; session 13, the p13_ kernels; session 25, the p25_ kernels; session 26, the p26_ kernels; session 27, the p27_ kernels) in idioms
// the repository did not hold (docs/language.md, "Kernels by idiom"), taken as a new user takes them
// through the binary:
// `accelopt eval` checks each against its numpy reference, `accelopt parse --emit loops` lifts it
// to the loop-nest form (or names the construct that stops it), and `accelopt rewrite` lists the
// built-in agent's sites. A kernel the agent offers nothing is listed with the reason, so a new
// site (or a lift that starts working) shows up here as a change to record.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

struct Case {
  std::string name;
  std::string lift_gap;  // "" when the kernel lifts; else the construct the error names
  bool offers_sites;     // false: the agent finds nothing (the reason is in docs/language.md)
};

const std::vector<Case> kCases = {
    {"usr_ds_sequential_colsum", "", true},  // matmul_accumulate: the block sums accumulated in PSUM
    {"new_layernorm_bn_dst", "", true},
    // session 8: the launched gated_relu is the form (its grid the loops of its program ids):
    // fold_scalar_tensor_tensor, engine_assign, in_place in the program's body
    {"usr_spmd_mgrid_tail", "", true},
    {"usr_masked_row_argmax", "", true},
    {"usr_load_transpose_matmul", "", true},  // transpose_on_pe: the DMA transposes on the Tensor Engine
    // Lifts since session 19; its tiles are made by comprehensions and helpers called through a
    // dict, printed as written: no site (the text rule's free_size of `P` was offered while it
    // did not lift).
    {"usr_builtin_sum_tiles", "", false},
    {"new_softmax_reduce_dst", "", true},
    {"usr_triangular_cumsum", "", false},  // a carried prefix on the Tensor Engine: no move for it
    {"usr_rope_interleaved_steps", "", true},
    {"usr_bf16_gelu_mlp", "", true},  // lifts since session 37 (getattr(nl, name), reshape((-1, D)))
    {"usr_mutable_sgd_inplace", "", true},
    {"usr_group_norm_3d", "", true},
    {"usr_splitk_dma_accumulate", "", true},  // rmw_to_psum: the chunks summed in PSUM, one store
    {"usr_uint32_hash_bits", "", true},
    // session 7
    {"usr_fp8_quant_matmul", "", true},
    {"usr_activation_scale_bias_tiles", "", true},
    {"usr_clip_where_two_op", "", true},
    {"usr_nested_jit_rmsnorm", "", true},  // the @nki.jit sub-kernel opens (helpers=open sites)
    {"new_static_affine_activation", "", true},
    // session 8: the generator an ordered effect (draws frozen, their loops sequential): the folds
    // and engine moves of the rate arithmetic and the range check
    {"usr_dropout_rows_rand_range", "", true},
    // session 8: nl.expand_dims a view: open_composite, then the softmax moves
    {"usr_softmax_composite_expand", "", true},
    // session 8, the other SPMD launches of the corpus: a wrapper launching one kernel lifts as
    // the launched kernel; one launching two keeps its form (each launch a closed helper node)
    {"tut_tensor_add_spmd", "", true},
    {"sample_program_id_grid_tuple", "", true},
    // two launches in one wrapper: the wrapper keeps its form; moves inside the launched bodies
    // print there (helpers=body, session 43)
    {"con_spmd_grid", "", true},
    // session 9, kernels written as other authors would (docs/language.md, "Kernels by idiom")
    {"p9_silu_alias_slices", "", true},  // tile_size, fuse_nests, chunk_rows
    {"p9_adamw_mgrid_tail", "", true},   // the lambda's and the helper's work opened (helpers=open)
    {"p9_rmsnorm_reduce_axis_tuple", "", true},
    {"p9_rope_negative_slices", "", true},
    {"p9_matmul_trace_lists", "", true},  // lifts since session 19 (comprehensions computing tiles)
    {"p9_softmax_broadcast_reshape", "", true},
    {"p9_lora_shape_branches", "", true},  // hoist, hoist_expand, jam_rows with load_block opened
    {"p9_bmm_shape_unpack", "", true},
    {"p9_newapi_swiglu_dst", "", true},
    {"p9_gqa_loop_reduce_tuple", "", true},
    {"p9_add_rmsnorm_arange_pairs", "", true},
    {"p9_transpose_matmul_from_imports", "", true},  // names imported from nki.language lift
    {"p9_mamba_reverse_static", "", false},  // lifts walking backwards; no move takes a negative step
    {"p9_newapi_ap_rows", "", true},
    {"p9_groupnorm_3d_axis_tuple", "", true},
    {"p9_reverse_views_misc", "", true},  // engine_assign only: u is read after the reversed exp
    {"p9_row_stats_host_list", "", true},  // a list appended eight times in one iteration
    {"p9_softmax_reversed_rows", "", true},  // reversed(range(...)) unrolls; sites with it opened
    // session 10, twenty more authors (docs/language.md, "Kernels by idiom, session 10")
    {"p10_newapi_layernorm_reduce_dst", "", true},
    {"p10_upsample_arange_floordiv", "", false},  // loads and stores only: no compute to move
    {"p10_spmd_grid_masked_rows", "", true},       // np.empty_like of a kernel tensor in the wrapper
    {"p10_matmul_tile_size_constants", "", true},
    {"p10_causal_mask_iota_where", "", true},
    {"p10_load_transpose2d_gram", "", true},
    {"p10_legacy_dma_copy_rows", "", true},
    {"p10_static_poly_horner", "", true},          // math.factorial; Horner's carried name unrolls the static_range
    // lifts (closure defaults); since session 12 its wrapper lifts as the kernel it calls: 11 sites
    {"p10_nested_closure_kwonly", "", true},
    {"p10_online_logsumexp_sequential", "", true},  // the running max and sum: buffers the loop carries
    {"p10_reduce_negate_softmax", "", true},
    {"p10_int32_bucketize", "", true},
    {"p10_bf16_swish_rows", "", true},
    {"p10_fp8_e4m3_roundtrip", "", true},
    {"p10_par_dim_blocks_two_pass", "", true},
    {"p10_mgrid_3d_group_mean", "", false},        // one load, one mean, one store per block
    {"p10_nested_shape_unpack_ds", "", true},      // lifts (a host int's truth); the span loop unrolls: opened at the top level (session 22)
    {"p10_where_clamp_scalars", "", true},         // nl.where(tile condition, scalar, scalar)
    {"p10_newapi_spmd_bias_dst", "", true},        // the launch opens into a loop over the program ids: hoist the bias row (session 22); host-launched since session 41
    // the scan's carry lifts as a buffer the loop carries; load, scan, store and the carry copy
    // offer no move (the text-level free_size of the unlifted kernel is gone with the lift)
    {"p10_cummax_scan_carry", "", true},  // jam_rows: two row blocks' scan chains interleaved (session 17)
    // session 11 (docs/language.md, "Kernels by idiom, session 11"): decompiled, assistant-written
    // and newer-API kernels
    {"p11_gen_offset_grid_swish", "", true},
    {"p11_gen_matmul_block_psum", "", true},
    {"p11_gen_softmax_markers_static", "", true},
    {"p11_gen_mgrid_strided_pool", "", true},
    {"p11_gen_ragged_cols_bf16", "", true},
    {"p11_llm_layernorm_typed_helpers", "", true},
    {"p11_llm_static_unrolled_sum", "", true},
    {"p11_llm_ema_scan_chunks", "", true},           // the scan's state: a carried buffer
    {"p11_llm_iota_tril_where", "", true},
    {"p11_llm_select_reduce_relu_max", "", true},
    {"p11_llm_range_select_window", "", true},
    {"p11_llm_online_softmax_two_pass", "", true},   // running max and sum: carried buffers
    {"p11_llm_config_dict_static_max", "", true},    // **kwargs, dict(), dict.update()
    {"p11_new_softplus_dst", "", true},
    {"p11_new_matmul_gelu_dst", "", true},
    {"p11_new_iota_position_dst", "", true},  // since session 41 its newer-API copy, on VectorE on NC-v2, may run on ScalarE as an activation copy
    {"p11_new_scan_cumsum_dst", "", true},            // a dst-first scan whose carry is refreshed in place
    {"p11_new_transpose_psum_dst", "", true},
    // session 12 (docs/language.md, "Kernels by idiom, session 12"): the newer API with ragged
    // tiles by min(), assistant-written pipelines, legacy kernels mixing masks and ISA selections
    {"p12_new_matmul_ragged_min", "", true},         // interchange of its m and n loops (the ragged slices: no other move)
    {"p12_new_rmsnorm_ragged_rows", "", true},
    {"p12_new_softmax_negmax_dst", "", true},
    {"p12_new_transpose_blocks_ragged", "", true},   // interchange of its block loops only
    {"p12_new_bias_gelu_cols", "", true},
    {"p12_new_rowsum_memset_acc", "", true},
    {"p12_new_iota_onehot_smooth", "", true},        // the wrapper passing scalars lifts as the kernel
    {"p12_new_transpose_then_matmul", "", true},
    {"p12_llm_swiglu_typed_helpers", "", true},
    {"p12_llm_head_tile_list", "", true},
    {"p12_llm_scores_softmax_helpers", "", true},    // a helper's argument another helper's result
    {"p12_llm_layernorm_shape_branch", "", true},    // a helper's `if` on a shape, host lists of sums
    {"p12_llm_residual_rmsnorm_tuple", "", true},
    {"p12_llm_matmul_helper_static_k", "", true},
    {"p12_mix_mgrid_where_tail", "", true},          // the wrapper passing slope= lifts as the kernel
    {"p12_mix_scan_decay_masked", "", true},         // jam_rows of the masked row blocks (session 23)
    {"p12_mix_select_reduce_lengths", "", true},
    {"p12_mix_mgrid_sequential_colmax", "", true},
    // session 13: the high-level nki.language API (p13_api_), decompiled legacy (p13_gen_), first
    // versions' loop nests (p13_first_), one program in three spellings (p13_trio_)
    {"p13_api_matmul_transpose_x", "", true},
    {"p13_api_matmul_gelu_bias", "", true},
    {"p13_api_softmax_operators", "", true},
    {"p13_api_layernorm_mean", "", true},
    {"p13_api_transpose_blocks", "", true},
    {"p13_api_load_transpose2d_gate", "", true},
    {"p13_api_where_int_casts", "", true},
    {"p13_api_full_acc_rowstats", "", true},
    // Its one site was the `/ n` of the mean (nl.divide) on another engine, an ISA divide that does
    // not compile (nki-language.md 9.1; session 38): nothing left to move.
    {"p13_api_ones_colsum_matmul", "", false},
    {"p13_api_composites_softmax_rmsnorm", "", true},
    {"p13_gen_rmsnorm_markers_mixed_loops", "", true},
    {"p13_gen_matmul_blocks_api", "", true},
    {"p13_gen_softmax_ops_sequential", "", true},
    {"p13_first_ragged_min_hoistable", "", true},
    {"p13_first_matmul_sbuf_acc", "", true},  // psum_accumulate of the SBUF accumulator
    {"p13_first_masked_cols_bias_inner", "", true},
    {"p13_first_per_row_stores", "", true},
    {"p13_first_two_pass_center", "", true},
    {"p13_first_last_tile_branch", "", true},  // lifts: `if t == last and n % 128 != 0`, rows chosen
    {"p13_first_transpose_then_matmul", "", true},
    {"p13_trio_matmul_isa", "", true},
    {"p13_trio_matmul_api", "", true},
    {"p13_trio_matmul_gen", "", true},
    {"p13_trio_softmax_isa", "", true},
    {"p13_trio_softmax_api", "", true},
    {"p13_trio_softmax_gen", "", true},
    // session 25 (probe25): each lifted no loop-nest form, or listed a site its apply refused
    {"p25_invert_sign_bits", "", true},     // `~t` of a tile lifts as nl.invert
    // outs[h] in a `range` loop: the loop lifts as its copies (frozen, printed as written); since
    // session 26 the comprehension's outputs are known as outs[0], outs[1], ..., so the copies open
    // (helpers=open: engine_assign, in_place); before, no site
    {"p25_head_outputs_list", "", true},
    {"p25_while_column_walk", "", true},    // `col += width` in the row loop's body that binds col
    {"p25_dict_row_stats", "", true},       // a dict display of results (frozen, read by key)
    {"p25_band_mask_fraction", "", true},   // the comparison folds print dtype=nl.bool_ and apply
    {"p25_new_permute_rows_relu", "", true},  // transpose_on_pe of a dst-first dma_copy of a permuted view
    // session 26 (probe26)
    {"p26_helper_keyword_tiles", "", true},  // interchange of the opened helper's loops applies (headers from the form)
    {"p26_reduce_api_tiles", "", true},      // functools.reduce of nl.maximum / nl.add lifts as its chain
    {"p26_loop_name_labels", "", true},      // name=f"row{i}_exp" labels are left out of the form
    // session 27 (probe27)
    // `if j == 0: run = ...` / `else: run = f(run, ...)`: the block loop lifts as its copies, which
    // open (helpers=open: engine_assign, in_place); before, refused ("the name 'run'")
    {"p27_first_block_seed", "", true},
    // `total = None` then `sq if total is None else total + sq`: the copies, opened as above; before,
    // lifted as the first iteration alone (no add), and a tile_size site printed a wrong kernel
    {"p27_none_seeded_sum", "", true},
    {"p27_shape_fast_path", "", true},   // code after an early return decided by the shapes is kept as written
};

TEST(CorpusNewIdioms, EachKernelChecksLiftsAsRecordedAndOffersTheRecordedSites) {
  TempDir tmp;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string base = "tests/kernels/corpus/" + c.name;
    const std::string files = " --reference " + base + ".ref.py --kernel " + base + ".py";

    CliRun check = accelopt(tmp.path(), "eval" + files + " --seeds 0,42 --no-profile --json");
    ASSERT_EQ(check.exit_code, 0) << check.err << check.out;
    auto j = check.json();
    EXPECT_EQ(j["status"], "ok") << check.out;
    EXPECT_TRUE(j["correct"].get<bool>()) << check.out;

    CliRun loops = accelopt(tmp.path(), "parse --emit loops " + base + ".py --reference " + base + ".ref.py");
    if (c.lift_gap.empty()) {
      EXPECT_EQ(loops.exit_code, 0) << loops.err;
      EXPECT_NE(loops.out.find("kernel "), std::string::npos) << loops.out;
    } else {
      EXPECT_NE(loops.exit_code, 0) << c.name << " lifts now: record it in kCases and docs/language.md";
      EXPECT_NE(loops.err.find(c.lift_gap), std::string::npos) << loops.err;
      // The refusal points at the construct, compiler-style.
      EXPECT_NE(loops.err.find(base + ".py:"), std::string::npos) << loops.err;
    }

    CliRun sites = accelopt(tmp.path(), "rewrite --json --kernel " + base + ".py --reference " + base + ".ref.py");
    ASSERT_EQ(sites.exit_code, 0) << sites.err;
    size_t n = sites.json().size();
    if (c.offers_sites) EXPECT_GT(n, 0u) << "the agent finds nothing on " << c.name;
    else EXPECT_EQ(n, 0u) << c.name << " offers sites now: record it in kCases and docs/language.md";
  }
}

}  // namespace
}  // namespace bench_e2e
