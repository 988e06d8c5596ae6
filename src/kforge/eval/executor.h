#pragma once
// Where an evaluation runs: the seam between the pipeline (evaluate_here) and the machines.
//   local: in this process, as kforge always did.
//   slurm: as a job on a node of a Slurm cluster (slurm_executor.h); the model calls, the store
//          and the search's decisions stay in this process, which only submits and waits.
// evaluate() hands an evaluation to EvalOptions::executor when one is set, so every caller (eval,
// bench, auto, search, the tuner, paired decisions) goes through the seam without knowing it.

#include <string>

#include "kforge/eval/evaluate.h"

namespace kforge::eval {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual Evaluation evaluate(const TaskContext& ctx, const std::string& source,
                              const std::string& file_name, const EvalOptions& options) = 0;
  // Ends the work in flight (Ctrl-C): jobs are cancelled and the evaluations waiting on them end.
  virtual void cancel_all() {}
  // What it did, for the end of a command ("12 jobs, 1 retried"); "" when there is nothing to say.
  virtual std::string summary() const { return ""; }
};

class LocalExecutor final : public Executor {
 public:
  Evaluation evaluate(const TaskContext& ctx, const std::string& source,
                      const std::string& file_name, const EvalOptions& options) override {
    return evaluate_here(ctx, source, file_name, options);
  }
};

}  // namespace kforge::eval
