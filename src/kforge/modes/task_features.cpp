// The task's features for the strategy catalogue: its tags, and what its notes and sizes say.
#include "kforge/modes/task_features.h"

#include <algorithm>
#include <cctype>

#include "kforge/agents/task_notes.h"

namespace kforge::modes {
namespace {

bool has(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The tags that name skippable work, and the words of the notes that describe it. "ragged" alone
// is no evidence in the notes (14p_ragged_dot's explain that its groups are all full), nor is
// "padding" (a convolution's zero border is work the kernel must do).
bool masked_work(const core::TaskSpec& spec) {
  for (const char* tag : {"causal", "ragged", "paged", "routing"})
    if (has(spec.tags, tag)) return true;
  const std::string notes =
      lower(spec.notes + "\n" + agents::task_notes(spec, spec.default_size) + "\n" + spec.title);
  for (const char* word : {"mask", "causal"})
    if (notes.find(word) != std::string::npos) return true;
  return false;
}

bool shared_kv_heads(const core::TaskSpec& spec) {
  if (has(spec.tags, "gqa")) return true;
  const core::SizePreset* size = spec.find_size(spec.default_size);
  if (!size) return false;
  auto hq = size->symbols.find("Hq");
  auto hkv = size->symbols.find("Hkv");
  return hq != size->symbols.end() && hkv != size->symbols.end() && hkv->second < hq->second;
}

}  // namespace

std::vector<std::string> task_features(const core::TaskSpec& spec) {
  std::vector<std::string> out = spec.tags;
  if (masked_work(spec)) out.push_back(kMaskedWork);
  if (shared_kv_heads(spec)) out.push_back(kSharedKvHeads);
  return out;
}

}  // namespace kforge::modes
