// objdump's listing parsed, the samples charged to its instructions, and the bounded text the
// profiler reads.
#include "kforge/eval/hot_instructions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <sstream>

#include "kforge/core/subprocess.h"

namespace kforge::eval {
namespace {

// Caps that keep the profiler's request lean: 12 + 7 lines of ~75 bytes and a header; with
// several long function names the top list is cut to fit the budget.
constexpr std::size_t kTextChars = 48;
constexpr std::size_t kFunctionChars = 32;
constexpr std::size_t kTextBudget = 1536;

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::string cut(const std::string& s, std::size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

// "void kforge::gemm::avx2::pack_b<224l>(float const*, long, long, float*)" →
// "kforge::gemm::avx2::pack_b<224l>": no return type, no parameters; when still longer than `n`,
// no namespaces ("pack_b<224l>"), then its template arguments cut.
std::string short_function(const std::string& name, std::size_t n) {
  if (name.empty()) return "(no symbol)";
  int depth = 0;
  std::size_t begin = 0, end = name.size(), scope = std::string::npos;
  for (std::size_t i = 0; i < name.size() && end == name.size(); ++i) {
    char c = name[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (depth != 0) continue;
    if (c == ' ') begin = i + 1, scope = std::string::npos;
    if (c == ':' && i + 1 < name.size() && name[i + 1] == ':') scope = i + 2;
    if (c == '(' && i > 0) end = i;
  }
  if (begin >= end) return cut(name, n);
  std::string s = name.substr(begin, end - begin);
  if (s.size() <= n) return s;
  if (scope != std::string::npos && scope > begin && scope < end)
    s = name.substr(scope, end - scope);
  if (s.size() <= n) return s;
  return s.find('<') < n - 4 ? s.substr(0, n - 4) + "...>" : cut(s, n);
}

// The operation, without prefixes: "vfmadd231ps", "vmovups", "lock add" → "add".
std::string mnemonic(const std::string& text) {
  static const char* const kPrefixes[] = {"lock",   "rep", "repz", "repnz",   "repe", "repne",
                                          "data16", "cs",  "ds",   "notrack", "bnd",  "{vex}"};
  std::istringstream in(text);
  std::string word;
  while (in >> word)
    if (std::find(std::begin(kPrefixes), std::end(kPrefixes), word) == std::end(kPrefixes))
      return word;
  return text;
}

// The `n` largest of `totals`, largest first, as "name share%" items.
std::string largest(const std::map<std::string, long>& totals, long total, std::size_t n) {
  std::vector<std::pair<long, std::string>> v;
  v.reserve(totals.size());
  for (const auto& [name, samples] : totals) v.emplace_back(samples, name);
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string s;
  for (std::size_t i = 0; i < std::min(n, v.size()); ++i)
    s += fmt::format(
        "{}{} {:.0f}%", i ? ", " : "", v[i].second,
        total > 0 ? 100.0 * static_cast<double>(v[i].first) / static_cast<double>(total) : 0);
  return s;
}

bool is_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c));
  });
}

// "mov    rdx,rdi   # 2000 <x>" (GNU) or "mov\trdx, rdi # 0x2000 <x>" (LLVM) → "mov rdx,rdi":
// the comment and a branch target's symbol go, runs of blanks become one space, and Intel
// syntax's " PTR" goes ("YMMWORD [rax]" says as much in fewer bytes of the model's request).
std::string clean_instruction(std::string_view raw) {
  std::string s(raw.substr(0, raw.find('#')));
  if (auto sym = s.find(" <"); sym != std::string::npos) s.erase(sym);
  for (const char* ptr : {" PTR ", " ptr "})
    for (auto at = s.find(ptr); at != std::string::npos; at = s.find(ptr, at)) s.erase(at, 4);
  std::string out;
  for (char c : s) {
    if (c == '\t') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  return trim(out);
}

// "0000000000001100 <kernel._omp_fn.0>:" → the name, or nullopt for any other line.
std::optional<std::string> function_header(std::string_view line) {
  auto space = line.find(' ');
  if (space == std::string_view::npos || !is_hex(line.substr(0, space))) return std::nullopt;
  auto rest = line.substr(space + 1);
  if (!rest.starts_with('<') || !rest.ends_with(">:")) return std::nullopt;
  return std::string(rest.substr(1, rest.size() - 3));
}

// The instruction at `offset`, or the one whose bytes contain it (up to the next one printed).
const Instruction* instruction_at(const std::vector<Instruction>& code, std::uint64_t offset) {
  auto it = std::upper_bound(code.begin(), code.end(), offset,
                             [](std::uint64_t o, const Instruction& i) { return o < i.offset; });
  if (it == code.begin()) return nullptr;
  const Instruction* at = &*std::prev(it);
  // Past the last instruction printed, only an x86 instruction's longest length still belongs.
  std::uint64_t end = it != code.end() ? it->offset : at->offset + 15;
  return offset < end ? at : nullptr;
}

HotInstruction hot(const Instruction& i, long samples, long total) {
  return {i.offset, samples,
          total > 0 ? static_cast<double>(samples) / static_cast<double>(total) : 0, i.function,
          i.text};
}

std::vector<std::string> disassembler_command(const std::string& tool, const std::string& object) {
  std::vector<std::string> argv = {tool, "-d", "--no-show-raw-insn", "-C"};
#if defined(__x86_64__)
  // Intel syntax: destination first, as the intrinsics guide and most tuning advice write it.
  argv.insert(argv.end(), {"-M", "intel"});
#endif
  argv.push_back(object);
  return argv;
}

std::string first_line(const std::string& s) {
  std::string l = trim(s.substr(0, s.find('\n')));
  return l.empty() ? "no message" : cut(l, 160);
}

}  // namespace

std::vector<Instruction> parse_disassembly(std::string_view listing) {
  std::vector<Instruction> code;
  std::string function;
  std::size_t start = 0;
  while (start < listing.size()) {
    std::size_t end = std::min(listing.find('\n', start), listing.size());
    std::string_view line = listing.substr(start, end - start);
    start = end + 1;
    if (auto name = function_header(line)) {
      function = *name;
      continue;
    }
    // "    1100:\tvmovdqa ymm7,…": an address, a colon, the instruction.
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string address = trim(line.substr(0, colon));
    if (!is_hex(address) || line.substr(0, colon).find_first_not_of(" \t") == 0) continue;
    std::string text = clean_instruction(line.substr(colon + 1));
    if (text.empty()) continue;
    code.push_back({std::stoull(address, nullptr, 16), function, std::move(text)});
  }
  std::stable_sort(code.begin(), code.end(),
                   [](const auto& a, const auto& b) { return a.offset < b.offset; });
  return code;
}

HotInstructions attribute_samples(const std::vector<Instruction>& code,
                                  const std::vector<std::pair<std::uint64_t, long>>& offsets,
                                  long total_samples) {
  HotInstructions h;
  h.total_samples = total_samples;
  std::map<const Instruction*, long> charged;
  for (const auto& [offset, samples] : offsets) {
    h.kernel_samples += samples;
    if (const Instruction* at = instruction_at(code, offset)) {
      charged[at] += samples;
      h.attributed += samples;
    }
  }
  for (const auto& [at, samples] : charged) {
    h.top.push_back(hot(*at, samples, total_samples));
    h.by_function[at->function] += samples;
    h.by_mnemonic[mnemonic(at->text)] += samples;
  }
  std::sort(h.top.begin(), h.top.end(), [](const auto& a, const auto& b) {
    return a.samples != b.samples ? a.samples > b.samples : a.offset < b.offset;
  });
  if (h.top.size() > HotInstructions::kTop) h.top.resize(HotInstructions::kTop);
  if (h.attributed < h.kernel_samples)
    h.note = fmt::format("{} of the kernel's {} samples fell outside the disassembled code",
                         h.kernel_samples - h.attributed, h.kernel_samples);
  if (h.top.empty()) return h;

  // The hottest one's neighbours within its function: the loads feeding it, what waits on it.
  const Instruction* hottest = instruction_at(code, h.top.front().offset);
  auto i = static_cast<std::size_t>(hottest - code.data());
  std::size_t lo = i, hi = i;
  while (lo > 0 && i - lo < HotInstructions::kAround && code[lo - 1].function == hottest->function)
    --lo;
  while (hi + 1 < code.size() && hi - i < HotInstructions::kAround &&
         code[hi + 1].function == hottest->function)
    ++hi;
  for (std::size_t k = lo; k <= hi; ++k) {
    auto it = charged.find(&code[k]);
    h.around.push_back(hot(code[k], it == charged.end() ? 0 : it->second, total_samples));
  }
  return h;
}

HotInstructions hot_instructions_from_samples(const nlohmann::json& kernel_offsets,
                                              long total_samples, const std::string& shared_object,
                                              const DisassemblerOptions& options) {
  std::vector<std::pair<std::uint64_t, long>> offsets;
  // The runner's report is the kernel's to forge: entries of the wrong shape are skipped.
  for (const auto& o : kernel_offsets)
    if (o.is_array() && o.size() == 2 && o[0].is_number_unsigned() && o[1].is_number_integer())
      offsets.emplace_back(o[0].get<std::uint64_t>(), o[1].get<long>());
  HotInstructions none;
  none.total_samples = total_samples;
  for (const auto& [offset, samples] : offsets) none.kernel_samples += samples;
  if (offsets.empty()) return none;

  std::vector<std::string> tried;
  for (const auto& tool : options.tools) {
    auto r = core::run_process(disassembler_command(tool, shared_object),
                               {.timeout = options.timeout, .capture_limit = 64 << 20});
    if (r.spawn_failed) {
      tried.push_back(tool);
      continue;
    }
    none.tool = tool;
    if (!r.success()) {
      none.note = fmt::format("hot instructions not shown: {} {}: {}", tool, r.describe(),
                              first_line(r.err));
      return none;
    }
    auto code = parse_disassembly(r.out);
    if (code.empty()) {
      none.note =
          fmt::format("hot instructions not shown: {} found no code in the kernel's object", tool);
      return none;
    }
    HotInstructions h = attribute_samples(code, offsets, total_samples);
    h.tool = tool;
    return h;
  }
  none.note = fmt::format("hot instructions not shown: no disassembler on PATH (tried {})",
                          fmt::join(tried, ", "));
  return none;
}

std::string HotInstructions::text() const {
  std::string tail = note.empty() ? "" : "  (" + note + ")\n";
  if (top.empty()) return tail;
  // A timer sample lands on the instruction due to retire next: a slow load's wait often shows
  // on the instruction after it, which the neighbourhood lets the reader see.
  std::string head = "hot instructions (";
  for (const std::string& part : {why, tool})
    if (!part.empty()) head += part + "; ";
  head += fmt::format(
      "samples, share of all {}; a sample marks the instruction due to retire, often the one "
      "after a slow load):\n",
      total_samples);
  // Totals first: spread over many instructions (a micro-kernel's dozen FMAs), the operation and
  // the function that cost say more than any one address.
  std::map<std::string, long> functions;
  for (const auto& [name, samples] : by_function) functions[short_function(name, 40)] += samples;
  head += "  by operation: " + largest(by_mnemonic, total_samples, 6) + "\n";
  if (functions.size() > 1) head += "  by function: " + largest(functions, total_samples, 3) + "\n";
  const std::string& hottest = top.front().function;
  std::string near =
      fmt::format("  around the hottest, in {}:\n", short_function(hottest, kFunctionChars + 16));
  for (const auto& a : around)
    near +=
        fmt::format("  {:>5} {} {:#7x}  {}\n", a.samples ? std::to_string(a.samples) : "",
                    a.offset == top.front().offset ? ">" : " ", a.offset, cut(a.text, kTextChars));
  const bool one_function =
      std::all_of(top.begin(), top.end(), [&](const auto& t) { return t.function == hottest; });
  // The hottest first, as many as the budget holds beside the header and the neighbourhood.
  std::string rows;
  for (const auto& t : top) {
    std::string row =
        fmt::format("  {:>5} {:5.1f}% {:#7x}  {}{}\n", t.samples, 100 * t.share, t.offset,
                    cut(t.text, kTextChars),
                    one_function ? "" : "  [" + short_function(t.function, kFunctionChars) + "]");
    if (head.size() + rows.size() + row.size() + near.size() + tail.size() > kTextBudget) break;
    rows += row;
  }
  return head + rows + near + tail;
}

nlohmann::json to_json(const HotInstructions& h) {
  auto rows = [](const std::vector<HotInstruction>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : v)
      out.push_back({{"offset", i.offset},
                     {"samples", i.samples},
                     {"share", i.share},
                     {"function", i.function},
                     {"instruction", i.text}});
    return out;
  };
  return {{"why", h.why},
          {"tool", h.tool},
          {"total_samples", h.total_samples},
          {"kernel_samples", h.kernel_samples},
          {"attributed", h.attributed},
          {"by_function", h.by_function},
          {"by_operation", h.by_mnemonic},
          {"top", rows(h.top)},
          {"around", rows(h.around)},
          {"note", h.note}};
}

HotInstructions hot_instructions_from_json(const nlohmann::json& j) {
  HotInstructions h;
  if (!j.is_object()) return h;
  auto rows = [&](const char* key) {
    std::vector<HotInstruction> out;
    for (const auto& i : j.value(key, nlohmann::json::array()))
      out.push_back({i.value("offset", std::uint64_t{0}), i.value("samples", 0L),
                     i.value("share", 0.0), i.value("function", ""), i.value("instruction", "")});
    return out;
  };
  h.why = j.value("why", "");
  h.tool = j.value("tool", "");
  h.total_samples = j.value("total_samples", 0L);
  h.kernel_samples = j.value("kernel_samples", 0L);
  h.attributed = j.value("attributed", 0L);
  auto totals = [&](const char* key) {
    std::map<std::string, long> out;
    const nlohmann::json kept = j.value(key, nlohmann::json::object());
    for (const auto& [name, samples] : kept.items())
      if (samples.is_number_integer()) out[name] = samples.get<long>();
    return out;
  };
  h.by_function = totals("by_function");
  h.by_mnemonic = totals("by_operation");
  h.top = rows("top");
  h.around = rows("around");
  h.note = j.value("note", "");
  return h;
}

}  // namespace kforge::eval
