#include "search/kernel_evaluator.h"

#include <map>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "base/content_hash.h"

namespace search {

const char* const kEvaluatorVersion = "accelopt-eval-2";  // 2: typed failures, poisoned outputs, precision by dtype

std::string evaluation_key(const TaskSpec& task, const std::string& kernel_text) {
  std::string settings = fmt::format("{}|{}|{}", task.info.arch, task.tolerance, fmt::join(task.seeds, ","));
  if (!task.key_tag.empty()) settings += "|" + task.key_tag;  // untagged keys stay as they were
  return base::content_hash({kernel_text, task.info.reference_text, settings, kEvaluatorVersion});
}

CachedEvaluator::CachedEvaluator(eval::Executor& executor, RunJournal* journal, std::string cache_dir)
    : executor_(executor), journal_(journal), cache_dir_(std::move(cache_dir)) {}

eval::EvalJob CachedEvaluator::make_job(const TaskSpec& task, const std::string& key, const std::string& kernel) const {
  eval::EvalJob job;
  job.id = key;
  job.request.kernel_path = task.info.kernel_file_name;  // for diagnostics; the text is what runs
  job.request.kernel_text = kernel;
  job.request.reference_path = task.reference_path;
  job.request.reference_text = task.info.reference_text;
  job.request.arch = task.info.arch;
  job.request.seeds = task.seeds;
  job.request.tolerance = task.tolerance;
  job.request.cache_dir = task.ref_cache ? cache_dir_ : "";
  job.key_tag = task.key_tag;  // the re-check's executor job must not reuse a search-time result
  return job;
}

std::vector<eval::Evaluation> CachedEvaluator::evaluate(const TaskSpec& task, const std::vector<std::string>& kernels,
                                                       const OnResult& on_result) {
  std::vector<std::string> keys;
  std::map<std::string, eval::Evaluation> known;
  std::vector<eval::EvalJob> jobs;
  for (const auto& kernel : kernels) {
    std::string key = evaluation_key(task, kernel);
    keys.push_back(key);
    if (known.count(key)) continue;
    if (journal_) {
      if (auto cached = journal_->find_evaluation(task.info.name, key)) {
        known[key] = *cached;
        continue;
      }
    }
    // Placeholder until the job returns (it stays when the executor is cancelled first).
    known[key].diagnostics = {"not evaluated: the evaluation was cancelled"};
    known[key].cancelled = true;
    jobs.push_back(make_job(task, key, kernel));
  }
  eval::ProgressFn progress;
  if (on_result) progress = [&](const std::string&, const eval::Evaluation& e) { on_result(e); };
  std::vector<eval::Evaluation> fresh = executor_.run(jobs, progress);
  std::vector<EvaluatedKernel> batch;
  for (size_t i = 0; i < jobs.size() && i < fresh.size(); ++i) {
    known[jobs[i].id] = fresh[i];
    // A cancelled evaluation is not a result: a resumed run must evaluate the kernel again.
    if (!fresh[i].cancelled) batch.push_back({jobs[i].id, jobs[i].request.kernel_text, fresh[i]});
  }
  // One commit for the whole batch, before any result is returned to the loop.
  if (journal_ && !batch.empty()) journal_->record_evaluations(task.info.name, batch);
  std::vector<eval::Evaluation> out;
  for (const auto& key : keys) out.push_back(known[key]);
  return out;
}

}  // namespace search
