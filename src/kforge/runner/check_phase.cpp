// One call per secret input set. The parent, not this process, compares the snapshots with the
// reference: nothing the kernel can reach here knows the right answer.
#include <cstring>

#include "kforge/runner/fault_report.h"
#include "kforge/runner/phases.h"

namespace kforge::runner {
namespace {

struct CallRecord {
  double ms = 0;
  bool inputs_intact = true;
  bool late_write = false;  // the outputs changed after the snapshot was taken
};

bool outputs_changed_since_snapshot(const OutputSet& out) {
  for (std::size_t i = 0; i < out.live.size(); ++i)
    if (std::memcmp(out.live[i].data, out.snapshot[i].data(), out.snapshot[i].size()) != 0) return true;
  return false;
}

void store_snapshot(RunState& s, const OutputSet& out, std::size_t set_index) {
  unsigned char* base = s.results + set_index * s.output_layout.file_bytes;
  for (std::size_t i = 0; i < out.snapshot.size(); ++i)
    std::memcpy(base + s.output_layout.slots[i].data_offset, out.snapshot[i].data(), out.snapshot[i].size());
}

nlohmann::json run_calls(RunState& s, const KernelLibrary& kernel, OutputSet& out, std::size_t result_offset, const char* who) {
  static char phase[64];
  std::vector<CallRecord> calls;
  for (std::size_t k = 0; k < s.check_inputs.size(); ++k) {
    if (k > 0) calls.back().late_write = outputs_changed_since_snapshot(out);
    poison(s.setup, out);
    std::snprintf(phase, sizeof phase, "%s, check set %zu", who, k + 1);
    set_fault_phase(phase);
    double t0 = now_seconds();
    kernel.call(s.args(s.check_inputs[k], out));
    double t1 = now_seconds();
    take_snapshot(out);
    set_fault_phase("checking");
    CallRecord rec;
    rec.ms = (t1 - t0) * 1e3;
    rec.inputs_intact = hash_inputs(s.check_inputs[k]) == s.check_hashes[k];
    calls.push_back(rec);
    store_snapshot(s, out, result_offset + k);
  }
  double background = idle_cpu_ms();
  calls.back().late_write = outputs_changed_since_snapshot(out);
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : calls) list.push_back({{"ms", c.ms}, {"inputs_intact", c.inputs_intact}, {"late_write", c.late_write}});
  return {{"calls", list}, {"background_cpu_ms", background}};
}

}  // namespace

void check_phase(RunState& s) {
  int threads_before = thread_count(s.proc_stat_fd);
  nlohmann::json result = {{"op", "checked"}, {"threads_before", threads_before}};
  result["candidate"] = run_calls(s, *s.candidate, s.candidate_out, 0, "kernel");
  if (s.partner_untrusted) result["partner"] = run_calls(s, *s.partner, s.partner_out, s.check_inputs.size(), "--against kernel");
  result["threads_after"] = thread_count(s.proc_stat_fd);
  set_fault_phase("waiting");
  write_message(s.channel, result);
}

}  // namespace kforge::runner
