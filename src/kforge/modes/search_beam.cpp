// Beam search: depth by depth, only valid children not much slower than their parent kept.
#include <fmt/format.h>

#include <algorithm>

#include "kforge/modes/search_algorithms.h"

namespace kforge::modes {
namespace {

// Only valid nodes enter the beam, and only if not much slower than their parent, side by side.
bool admissible(const SearchDriver& d, std::int64_t child, double keep_factor) {
  if (!child || !d.correct(child)) return false;
  auto ratio = d.ratio_to_parent(child);
  return ratio && *ratio * keep_factor >= 1.0;
}

}  // namespace

void run_beam(SearchDriver& d, const SearchOptions& o) {
  std::vector<std::int64_t> beam = {d.root()};
  // At most: the root's branches, then every beam node's at each deeper level.
  d.plan(o.branches + (o.depth - 1) * o.beam_size * o.branches, o.depth);
  for (int depth = 1; depth <= o.depth && !d.stopped(); ++depth) {
    std::vector<Expansion> wave;
    for (auto b : beam)
      for (const auto& sid :
           sample(d.unused_strategies(b), static_cast<std::size_t>(o.branches), d.rng()))
        // The key names the node by its number in the run, as the progress lines show it.
        wave.push_back(
            {fmt::format("beam/d{}/n{}/{}", depth, d.number_of(b), sid), b, sid, std::nullopt});
    std::vector<std::int64_t> admitted;
    for (auto c : d.run_wave(wave))
      if (admissible(d, c, o.keep_factor)) admitted.push_back(c);
    admitted = rank_nodes(d, admitted);  // ties by interval, never by medians of separate runs
    if (admitted.size() > static_cast<std::size_t>(o.beam_size))
      admitted.resize(static_cast<std::size_t>(o.beam_size));
    d.progress.beams.push_back(admitted);
    if (admitted.empty()) {
      if (!d.stopped())
        d.stop(fmt::format("no correct child good enough to keep at depth {}", depth),
               store::RunState::finished);
      return;
    }
    beam = admitted;
  }
}

}  // namespace kforge::modes
