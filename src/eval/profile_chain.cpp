#include "eval/profile_chain.h"


namespace eval {

// Forwards records to one stage and turns anything it throws into that stage's failure; once any
// stage failed, every later record is dropped.
class ProfileChain::StageGuard final : public trn::TraceSink {
 public:
  StageGuard(Stage stage, trn::TraceSink& next, std::optional<Failed>& failure, const std::string& kernel_path)
      : stage_(stage), next_(next), failure_(failure), kernel_path_(kernel_path) {}

  void consume(const trn::Record& record) override {
    if (failure_) return;
    try {
      next_.consume(record);
    } catch (...) {
      record_failure(record.line);
    }
  }
  void finish() override {
    if (failure_) return;
    try {
      next_.finish();
    } catch (...) {
      record_failure(0);
    }
  }

 private:
  void record_failure(uint32_t line) {
    Failed f = failed_from_current_exception(stage_, kernel_path_);
    if (f.failure.line == 0 && line > 0) f = failed(Failure{f.failure.stage, f.failure.kind, f.failure.limit, kernel_path_,
                                                            line, 0, f.failure.message});
    failure_ = std::move(f);
  }

  Stage stage_;
  trn::TraceSink& next_;
  std::optional<Failed>& failure_;
  const std::string& kernel_path_;
};

ProfileChain::ProfileChain(const trn::ArchConfig& arch, const std::string& kernel_path, const BackEndOptions& options)
    : arch_(arch.name), kernel_path_(kernel_path) {
  trn::SimOptions sim;
  sim.timeline_path = options.timeline_path;
  sim.price_sbuf_space = options.price_sbuf_space;
  simulator_ = std::make_unique<trn::Simulator>(arch, sim);
  simulate_guard_ = std::make_unique<StageGuard>(Stage::Simulate, *simulator_, failure_, kernel_path_);
  lowering_ = std::make_unique<lower::Lowering>(*simulate_guard_, options.lowering);
  lower_guard_ = std::make_unique<StageGuard>(Stage::Lower, *lowering_, failure_, kernel_path_);
}

ProfileChain::~ProfileChain() = default;

trn::TraceSink& ProfileChain::sink() { return *lower_guard_; }

trn::Profile ProfileChain::profile() const {
  trn::Profile p = simulator_->profile();
  p.arch = arch_;
  return p;
}

}  // namespace eval
