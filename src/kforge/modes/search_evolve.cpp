// Evolutionary search: islands, a MAP-Elites archive (strategy family × code feature), crossover
// and migration, every choice drawn from the driver's seeded generator.
#include <fmt/format.h>

#include <map>

#include "kforge/modes/search_algorithms.h"

namespace kforge::modes {
namespace {

class Evolution {
 public:
  Evolution(SearchDriver& d, const SearchOptions& o)
      : d_(d),
        o_(o),
        islands_(std::max(1, o.islands)),
        members_(static_cast<std::size_t>(islands_), {d.root()}) {}

  void run() {
    // A child of generation g is at most g deep.
    d_.plan(o_.generations * islands_ * o_.population, o_.generations);
    for (int g = 1; g <= o_.generations && !d_.stopped(); ++g) {
      std::vector<Expansion> wave;
      std::vector<int> island_of;
      for (int i = 0; i < islands_; ++i)
        for (int p = 0; p < o_.population; ++p)
          if (auto x = choose(g, i, p)) {
            wave.push_back(*x);
            island_of.push_back(i);
          }
      admit(wave, island_of, d_.run_wave(wave));
      if (o_.migrate_every > 0 && g % o_.migrate_every == 0 && islands_ > 1) migrate();
    }
  }

 private:
  // One child of island `i`: a crossover of its best with a random elite, or a strategy from its
  // best (exploitation) or from a random elite (exploration).
  std::optional<Expansion> choose(int g, int i, int p) {
    double r = unit_(d_.rng());
    std::int64_t best = best_of(members_[static_cast<std::size_t>(i)]);
    if (r < o_.crossover && archive_.size() >= 2) {
      std::int64_t other = random_elite();
      if (other != best)
        return Expansion{fmt::format("evolve/g{}/i{}/{}/x{}", g, i, p, d_.number_of(other)), best,
                         "crossover", other};
    }
    std::int64_t parent = r < o_.crossover + o_.exploit ? best : random_elite();
    auto options = d_.unused_strategies(parent);
    if (options.empty()) return std::nullopt;
    std::string sid =
        options[std::uniform_int_distribution<std::size_t>(0, options.size() - 1)(d_.rng())];
    return Expansion{fmt::format("evolve/g{}/i{}/{}", g, i, p), parent, sid, std::nullopt};
  }

  // Correct children join their island and compete for their cell of the archive.
  void admit(const std::vector<Expansion>& wave, const std::vector<int>& island_of,
             const std::vector<std::int64_t>& children) {
    for (std::size_t k = 0; k < children.size(); ++k) {
      auto c = children[k];
      if (!c || !d_.correct(c)) continue;
      members_[static_cast<std::size_t>(island_of[k])].push_back(c);
      std::string cell = cell_of(c, wave[k].strategy);
      // A tie (overlapping intervals) keeps the elite in place.
      if (!archive_.count(cell) || clearly_above(d_, c, archive_[cell])) archive_[cell] = c;
    }
  }

  // Each island's best moves to the next island.
  void migrate() {
    std::vector<std::int64_t> emigrants;
    for (const auto& m : members_) emigrants.push_back(best_of(m));
    for (int i = 0; i < islands_; ++i)
      members_[static_cast<std::size_t>((i + 1) % islands_)].push_back(
          emigrants[static_cast<std::size_t>(i)]);
  }

  std::int64_t best_of(const std::vector<std::int64_t>& ids) const {
    std::int64_t best = d_.root();
    for (auto id : ids)
      if (clearly_above(d_, id, best)) best = id;  // a tie keeps the earlier
    return best;
  }

  std::int64_t random_elite() {
    if (archive_.empty()) return d_.root();
    auto it = archive_.begin();
    std::advance(it, static_cast<long>(std::uniform_int_distribution<std::size_t>(
                         0, archive_.size() - 1)(d_.rng())));
    return it->second;
  }

  std::string cell_of(std::int64_t id, const std::string& sid) const {
    std::string family =
        sid == "crossover" ? "crossover" : (d_.strategy(sid) ? d_.strategy(sid)->family : "other");
    return family + "×" + code_feature(d_.node(id).source);
  }

  SearchDriver& d_;
  const SearchOptions& o_;
  const int islands_;
  std::vector<std::vector<std::int64_t>> members_;
  std::map<std::string, std::int64_t> archive_;  // cell → elite
  std::uniform_real_distribution<double> unit_{0, 1};
};

}  // namespace

void run_evolve(SearchDriver& d, const SearchOptions& o) { Evolution(d, o).run(); }

}  // namespace kforge::modes
