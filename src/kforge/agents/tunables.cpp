// Parsing `// kforge:tune` lines and enumerating their grid.
#include "kforge/agents/tunables.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <regex>
#include <set>
#include <sstream>

namespace kforge::agents {

Result<std::vector<Tunable>> parse_tunables(const std::string& source) {
  static const std::regex decl(
      R"(^\s*//\s*kforge:tune\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*\{([^}]*)\}\s*$)");
  static const std::regex loose(R"(//\s*kforge:tune\b)");
  std::vector<Tunable> out;
  std::set<std::string> names;
  std::istringstream in(source);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    std::smatch m;
    if (!std::regex_search(line, loose)) continue;
    if (!std::regex_match(line, m, decl))
      return Error{fmt::format(
          "line {}: malformed tunable: expected `// kforge:tune NAME = {{a, b, c}}`, got `{}`", n,
          line)};
    Tunable t{m[1], {}, n};
    std::stringstream values(m[2].str());
    for (std::string v; std::getline(values, v, ',');) {
      v.erase(0, v.find_first_not_of(" \t"));
      v.erase(v.find_last_not_of(" \t") + 1);
      if (!v.empty()) t.values.push_back(v);
    }
    if (t.values.empty())
      return Error{fmt::format("line {}: tunable {} lists no values", n, t.name)};
    if (!names.insert(t.name).second)
      return Error{fmt::format("line {}: tunable {} is declared twice", n, t.name)};
    std::smatch guard;
    if (!std::regex_search(
            source, guard,
            std::regex("#\\s*ifndef\\s+" + t.name + "\\b[^\\n]*\\n\\s*#\\s*define\\s+" + t.name +
                       "\\s+([^\\s/]+)")))
      return Error{fmt::format(
          "line {}: tunable {} has no `#ifndef {} / #define {} <default> / #endif` guard", n,
          t.name, t.name, t.name)};
    t.default_value = guard[1];
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<TuneConfig> tune_configs(const std::vector<Tunable>& tunables, int budget,
                                     unsigned seed) {
  if (tunables.empty() || budget <= 0) return {};
  std::size_t grid = 1;
  for (const auto& t : tunables) grid = std::min<std::size_t>(grid * t.values.size(), 1u << 30);
  auto at = [&](std::size_t index) {
    TuneConfig c;
    for (const auto& t : tunables) {
      c[t.name] = t.values[index % t.values.size()];
      index /= t.values.size();
    }
    return c;
  };
  std::vector<TuneConfig> out;
  if (grid <= static_cast<std::size_t>(budget)) {
    for (std::size_t i = 0; i < grid; ++i) out.push_back(at(i));
    return out;
  }
  std::mt19937_64 rng(seed);
  std::set<std::size_t> chosen = {0};  // index 0: every tunable at its first value
  std::uniform_int_distribution<std::size_t> pick(0, grid - 1);
  while (chosen.size() < static_cast<std::size_t>(budget)) chosen.insert(pick(rng));
  for (std::size_t i : chosen) out.push_back(at(i));
  return out;
}

TuneConfig default_config(const std::vector<Tunable>& tunables) {
  TuneConfig c;
  for (const auto& t : tunables) c[t.name] = t.default_value;
  return c;
}

std::vector<std::string> config_flags(const TuneConfig& config) {
  std::vector<std::string> flags;
  for (const auto& [k, v] : config) flags.push_back(fmt::format("-D{}={}", k, v));
  return flags;
}

std::string describe(const TuneConfig& config) {
  std::string s;
  for (const auto& [k, v] : config) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

std::string apply_config(const std::string& source, const TuneConfig& config) {
  std::string out = source, head;
  for (const auto& [name, value] : config) {
    // The default's line right after its guard; a tuner's comment from an earlier round is
    // replaced.
    std::regex guard(
        fmt::format("(#[ \t]*ifndef[ \t]+{0}\\b[^\\n]*\\n[ \t]*#[ \t]*define[ \t]+{0}[ "
                    "\t]+)([^\\n]*?)[ \t]*(//[^\\n]*)?(\\n|$)",
                    name));
    std::smatch m;
    if (!std::regex_search(out, m, guard)) {
      head += fmt::format("#define {} {}  // kforge: chosen by the tuner\n", name, value);
      continue;
    }
    std::string declared = m[2].str();
    const std::string earlier = m[3].str(), mark = "(declared default ";
    if (auto was = earlier.find(mark); was != std::string::npos && earlier.back() == ')')
      declared = earlier.substr(was + mark.size(), earlier.size() - was - mark.size() - 1);
    out = m.prefix().str() + m[1].str() +
          fmt::format("{}  // kforge: chosen by the tuner (declared default {})", value, declared) +
          m[4].str() + m.suffix().str();
  }
  return head + out;
}

}  // namespace kforge::agents
