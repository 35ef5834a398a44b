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

// The next beam: from the old candidates and every correct new kernel, the best kernel of each
// (candidate, plan) branch (an old candidate is a branch of its own), then the `beam_size`
// fastest of those. Kernels whose text equals an already kept one are dropped. Ties go to the
// earlier entry (old candidates first), so the selection is deterministic.
std::vector<agents::Candidate> select_beam(const std::vector<agents::Candidate>& beam,
                                           const std::vector<KernelResult>& results, size_t beam_size);

}  // namespace search
