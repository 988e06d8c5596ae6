#pragma once
// The fake Compiler that compiler.h promises, for tests of the layers above the toolchain (the
// agents' requests, the tuner): it compiles nothing, answers with a result the test sets, keeps
// every request, and reports the version and flags a test chose, so a test can see them reach a
// prompt without a real compiler behind them.

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kforge/toolchain/compiler.h"

namespace kforge::toolchain {

class FakeCompiler : public Compiler {
 public:
  explicit FakeCompiler(std::string version = "g++ (fake) 1.0",
                        std::vector<std::string> flags = {"-O2", "-fake-flag"})
      : version_(std::move(version)), flags_(std::move(flags)) {}

  CompileResult compile(const CompileRequest& request) override {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    return result_;
  }
  std::string version() override { return version_; }
  std::vector<std::string> flags_for(Role) const override { return flags_; }

  // What every compile answers from now on (default: a failed compile with no diagnostics).
  void answer(CompileResult result) {
    std::lock_guard lock(mutex_);
    result_ = std::move(result);
  }
  std::vector<CompileRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  std::string version_;
  std::vector<std::string> flags_;
  mutable std::mutex mutex_;
  CompileResult result_;
  std::vector<CompileRequest> requests_;
};

}  // namespace kforge::toolchain
