// The rules of the lowering pipeline (one file each; lowering.cpp chains them in order).
#pragma once

#include <memory>

#include "lower/stage.h"

namespace lower {

// The trace vocabulary every rule speaks.
using trn::BufferKind;
using trn::Engine;
using trn::Opcode;
using trn::Record;
using trn::RecordKind;

std::unique_ptr<Stage> make_transpose_identity(trn::TraceSink& next, Shared& shared);
std::unique_ptr<Stage> make_psum_copies(trn::TraceSink& next, Shared& shared);
std::unique_ptr<Stage> make_psum_accumulation(trn::TraceSink& next, Shared& shared);
std::unique_ptr<Stage> make_hoist_loads(trn::TraceSink& next, Shared& shared);
std::unique_ptr<Stage> make_loop_folding(trn::TraceSink& next, Shared& shared);
std::unique_ptr<Stage> make_dma_coalescing(trn::TraceSink& next, Shared& shared);

}  // namespace lower
