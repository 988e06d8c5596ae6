#pragma once
// Reading back what to_json(Evaluation) wrote: enough of an evaluation (verdict, timings,
// speedup, roofline, profile, mismatch summary) to restore a session's state on --resume.

#include <nlohmann/json.hpp>

#include "kforge/eval/evaluation.h"

namespace kforge::eval {

Evaluation evaluation_from_json(const nlohmann::json& j);

}  // namespace kforge::eval
