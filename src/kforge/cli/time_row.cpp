// The `time` row of kforge eval's summary.
#include "kforge/cli/time_row.h"

#include <fmt/format.h>

#include <vector>

namespace kforge::cli {
namespace {

constexpr double kShown = 0.05;  // seconds: less is noise in a row read by a person

// "waited 184.20 for the machine lock, 6.00 for quiet; " or "".
std::string waits(const eval::Evaluation& e) {
  std::vector<std::string> parts;
  if (e.lock_wait_s >= kShown)
    parts.push_back(fmt::format("{:.2f} for the machine lock", e.lock_wait_s));
  if (e.quiet_wait.waited_s >= kShown)
    parts.push_back(fmt::format("{:.2f} for quiet", e.quiet_wait.waited_s));
  if (parts.empty()) return "";
  std::string s = "waited " + parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) s += ", " + parts[i];
  return s + "; ";
}

}  // namespace

std::string time_row(const eval::Evaluation& e) {
  const std::string partner =
      e.phases.partner_s >= kShown
          ? fmt::format("building the {} {:.2f}, ", e.partner, e.phases.partner_s)
          : "";
  return fmt::format("{:.2f} s ({}{}compile {:.2f}{}, check {:.2f}, timing {:.2f})",
                     e.phases.total_s, waits(e), partner, e.compile.seconds,
                     e.compile.cached ? " cached" : "", e.phases.check_s, e.phases.time_s);
}

}  // namespace kforge::cli
