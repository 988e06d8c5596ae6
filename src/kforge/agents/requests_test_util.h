#pragma once
// For tests of what the agents' requests carry: a fake model that answers each role with a reply
// its parser accepts and keeps every request, a session on it, and the text of a role's request.
// Shared by the agents' own request tests and the CLI's per-target wiring tests.

#include <memory>
#include <string>
#include <vector>

#include "kforge/llm/session.h"

namespace kforge::agents::fakes {

// A plan with every section the planner's parser requires.
inline const char* kPlanReply =
    "## Analysis\na\n## Bottleneck\nb\n## Strategy\nc\n## Blocking\nd\n## Vectorization\ne\n## "
    "Threading\nf\n## Tunables\nnone\n## Expected gain\ng\n";

inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

using Requests = std::shared_ptr<std::vector<llm::ChatRequest>>;

// Answers the planner with kPlanReply, the coder with `kernel` (a fenced block), the debugger with
// it and a fix summary, the profiler with `bottleneck`; keeps every request in `seen`.
class RecordingClient : public llm::ModelClient {
 public:
  RecordingClient(Requests seen, std::string kernel, std::string bottleneck)
      : seen_(std::move(seen)), kernel_(std::move(kernel)), bottleneck_(std::move(bottleneck)) {}
  std::string name() const override { return "fake"; }
  llm::LlmResult complete(const llm::ChatRequest& r, const llm::StreamCallback*) override {
    seen_->push_back(r);
    llm::ChatReply reply;
    reply.finish_reason = "stop";
    reply.usage = {100, 10, 0, 0};
    if (r.agent_role == "planner") reply.text = kPlanReply;
    if (r.agent_role == "coder") reply.text = coder_reply(r);
    if (r.agent_role == "debugger")
      reply.text = kernel_ + "FIX_SUMMARY:\nerror: e\ncause: c\nfix: f\n";
    if (r.agent_role == "profiler")
      reply.text =
          "BOTTLENECK: " + bottleneck_ + "\nDIAGNOSIS: d\nNEEDS_IMPROVEMENT: yes\nSUGGESTION: s\n";
    return reply;
  }

 protected:
  virtual std::string coder_reply(const llm::ChatRequest&) { return kernel_; }

 private:
  Requests seen_;
  std::string kernel_, bottleneck_;
};

// An unrecorded session (model openai:fake) whose every client is made by `make`.
template <typename MakeClient>
llm::LlmResultOf<std::unique_ptr<llm::LlmSession>> recording_session(MakeClient make) {
  llm::SessionOptions so;
  so.model = "openai:fake";
  so.record = false;
  so.make_client =
      [make](const llm::ModelSpec&,
             const llm::ClientOptions&) -> llm::LlmResultOf<std::unique_ptr<llm::ModelClient>> {
    return std::unique_ptr<llm::ModelClient>(make());
  };
  return llm::LlmSession::open({}, so);
}

// Every message of the first request of `role`, joined ("" when the role was not asked).
inline std::string first_request(const std::vector<llm::ChatRequest>& seen,
                                 const std::string& role) {
  for (const auto& r : seen)
    if (r.agent_role == role) {
      std::string all;
      for (const auto& m : r.messages) all += m.content + "\n";
      return all;
    }
  return "";
}

}  // namespace kforge::agents::fakes
