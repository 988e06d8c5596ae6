#pragma once
// What the server asks of the command layer to run a hitl session: the same set-up `kforge hitl`
// does (task, compiler, models, machine, journal, baseline), handed over as a factory of the one
// HitlSession class, so the page and the terminal drive the same engine.

#include <functional>
#include <memory>
#include <string>

#include "kforge/core/result.h"
#include "kforge/modes/hitl_session.h"

namespace kforge::web {

class HitlBackend {
 public:
  virtual ~HitlBackend() = default;
  virtual const std::string& run_id() const = 0;
  // The session, talking to `human`; called once.
  virtual std::unique_ptr<modes::HitlSession> make_session(modes::Human& human) = 0;
  // The run is marked finished (the session ended with quit or accept).
  virtual void finish() = 0;
};

struct HitlRequest {
  std::string task, size, model;  // a new session
  std::string resume;             // or the id of one to resume
};

// Sets a session up; an error with the reason (no such task, no model, …).
using HitlOpener = std::function<Result<std::unique_ptr<HitlBackend>>(const HitlRequest&)>;

}  // namespace kforge::web
