// Grouping a round's results by (candidate, plan) into rewrite pairs (AccelOpt's memory input).
// A group whose best correct kernel is at least t_pos times faster than its candidate is a
// positive rewrite (slow = candidate, fast = kernel); one whose best kernel is at least t_neg
// times slower is a negative rewrite (slow = kernel, fast = candidate). Tests:
// tests/unit/search/grouping_test.cpp.
#pragma once

#include <vector>

#include "agents/types.h"
#include "search/kernel_result.h"

namespace search {

std::vector<agents::RewritePair> find_rewrites(const std::vector<agents::Candidate>& beam,
                                               const std::vector<std::vector<agents::Plan>>& plans,
                                               const std::vector<KernelResult>& results, double t_pos, double t_neg,
                                               const std::string& task, int round);

// Up to `topk` pairs, largest speedup magnitude (slow / fast) first; ties keep their order.
std::vector<agents::RewritePair> top_pairs(std::vector<agents::RewritePair> pairs, size_t topk);

// Whether two evaluated kernels are indistinguishable to the search: both profiled, the same
// counts (instructions, bytes moved between HBM, SBUF and PSUM, spills, FLOPs) and the same
// latency and busy time per engine up to rounding (relative 1e-9). Such kernels are one schedule
// written twice: a move applied to one of several symmetric copies (the stores of rows a jam made
// alike), whose results differ in which copy changed and nothing else. A measured profile has
// noise far above 1e-9, so on a device two kernels are never twins.
bool same_evaluation(const agents::Candidate& a, const agents::Candidate& b);

// The next beam: from the old candidates and every correct new kernel, the best kernel of each
// (candidate, plan) branch (an old candidate is a branch of its own), then the `beam_size`
// fastest of those. Kernels whose text equals an already kept one are dropped; a twin of a kept
// one (same_evaluation) only fills a slot that no other kernel takes, since its next round would
// repeat its twin's (a beam of two holding the two symmetric results of one move drops the
// other branch, and whatever that branch leads to). Ties go to the earlier entry (old candidates
// first), so the selection is deterministic.
std::vector<agents::Candidate> select_beam(const std::vector<agents::Candidate>& beam,
                                           const std::vector<KernelResult>& results, size_t beam_size);

}  // namespace search
