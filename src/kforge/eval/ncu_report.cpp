// Reading `ncu --csv`: a small RFC 4180 reader (quoted fields, doubled quotes), the columns found
// by their header names, rows grouped by launch ID.
#include "kforge/eval/ncu_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kforge::eval {
namespace {

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(cur));
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  fields.push_back(std::move(cur));
  return fields;
}

std::optional<double> number(const std::string& value) {
  std::string digits;
  for (char c : value)
    if (c != ',') digits += c;
  if (digits.empty()) return std::nullopt;
  std::size_t used = 0;
  try {
    double v = std::stod(digits, &used);
    if (used == digits.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

struct Columns {
  std::map<std::string, std::size_t> at;
  std::optional<std::size_t> get(const std::string& name) const {
    auto it = at.find(name);
    return it == at.end() ? std::nullopt : std::optional(it->second);
  }
};

}  // namespace

const NcuMetric* NcuKernel::find(const std::string& metric) const {
  for (const auto& m : metrics)
    if (m.name == metric) return &m;
  return nullptr;
}

Result<std::vector<NcuKernel>> parse_ncu_csv(const std::string& output) {
  std::istringstream in(output);
  std::string line, ncu_error;
  std::optional<Columns> cols;
  std::vector<NcuKernel> kernels;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("==", 0) == 0) {
      if (line.find("ERROR") != std::string::npos && ncu_error.empty()) ncu_error = line;
      continue;
    }
    if (!cols) {
      if (line.rfind("\"ID\"", 0) != 0) continue;
      Columns c;
      auto names = csv_fields(line);
      for (std::size_t i = 0; i < names.size(); ++i) c.at[names[i]] = i;
      for (const char* need : {"ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"})
        if (!c.get(need))
          return Error{fmt::format("ncu --csv: line {}: the header has no \"{}\" column", n, need)};
      cols = std::move(c);
      continue;
    }
    if (line.empty()) continue;
    auto f = csv_fields(line);
    auto field = [&](const char* name) -> std::string {
      auto i = cols->get(name);
      return i && *i < f.size() ? f[*i] : std::string{};
    };
    if (f.size() < cols->at.size())
      return Error{fmt::format("ncu --csv: line {} has {} fields where the header has {}", n,
                               f.size(), cols->at.size())};
    const std::string id = field("ID");
    if (kernels.empty() || kernels.back().id != id) {
      kernels.push_back({id, field("Kernel Name"), field("Block Size"), field("Grid Size"), {}});
    }
    NcuMetric m{field("Section Name"), field("Metric Name"), field("Metric Unit"),
                field("Metric Value"), std::nullopt};
    m.number = number(m.value);
    kernels.back().metrics.push_back(std::move(m));
  }
  if (!cols)
    return Error{ncu_error.empty()
                     ? "ncu --csv: no CSV header (\"ID\", ..., \"Metric Value\") in its output"
                     : "ncu could not profile: " + ncu_error};
  return kernels;
}

std::string format_ncu(const std::vector<NcuKernel>& kernels, std::size_t max_launches) {
  std::string out;
  for (std::size_t k = 0; k < kernels.size() && k < max_launches; ++k) {
    const auto& kern = kernels[k];
    out += fmt::format(
        "{}{}\n", kern.name,
        kern.grid.empty() ? "" : fmt::format(" (grid {}, block {})", kern.grid, kern.block));
    std::string section = "\x01";
    for (const auto& m : kern.metrics) {
      if (m.section != section) {
        section = m.section;
        out += fmt::format("{}  {}:", out.back() == '\n' ? "" : "\n",
                           section.empty() ? "metrics" : section);
      }
      out += fmt::format(" {} {}{};", m.name, m.value, m.unit.empty() ? "" : " " + m.unit);
    }
    out += "\n";
  }
  if (kernels.size() > max_launches)
    out += fmt::format("({} more launches not shown)\n", kernels.size() - max_launches);
  return out;
}

std::vector<std::string> ncu_wrapper(const std::string& ncu) {
  // Speed of light (how close to the memory and compute peaks), occupancy (theoretical and
  // achieved, and what limits it), launch statistics (registers, shared memory, waves), memory
  // workload (hit rates, bytes moved). --target-processes all: the runner is ncu's child.
  return {ncu,
          "--csv",
          "--section",
          "SpeedOfLight",
          "--section",
          "Occupancy",
          "--section",
          "LaunchStats",
          "--section",
          "MemoryWorkloadAnalysis",
          "--target-processes",
          "all"};
}

void to_json(nlohmann::json& j, const NcuKernel& k) {
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& m : k.metrics)
    metrics.push_back(
        {{"section", m.section}, {"name", m.name}, {"unit", m.unit}, {"value", m.value}});
  j = {{"id", k.id}, {"name", k.name}, {"block", k.block}, {"grid", k.grid}, {"metrics", metrics}};
}

void from_json(const nlohmann::json& j, NcuKernel& k) {
  k.id = j.value("id", "");
  k.name = j.value("name", "");
  k.block = j.value("block", "");
  k.grid = j.value("grid", "");
  for (const auto& m : j.value("metrics", nlohmann::json::array())) {
    NcuMetric metric{m.value("section", ""), m.value("name", ""), m.value("unit", ""),
                     m.value("value", ""), std::nullopt};
    metric.number = number(metric.value);
    k.metrics.push_back(std::move(metric));
  }
}

}  // namespace kforge::eval
