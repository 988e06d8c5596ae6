#pragma once
// A task's notes for the agents: the `notes` field and the comments of its task.toml (what the
// code computes, where it departs from the original, how the inputs are structured, why the
// tolerance is what it is), and the opening comment of generate.cpp for tasks whose inputs it
// draws. Without them an input described as "structured" is a riddle.

#include <string>

#include "kforge/core/task_spec.h"

namespace kforge::agents {

// The notes as text, each comment attributed to the part of task.toml it stands in ("[check]",
// "input labels", "eps"); comments of other sizes' sections are left out. "" when there are none.
std::string task_notes(const core::TaskSpec& spec, const std::string& size);

}  // namespace kforge::agents
