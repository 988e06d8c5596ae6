#pragma once
// The record of one machine's measured peaks in the per-user cache:
// <cache>/peaks/<host>-<key>.json, keyed by what decides the peaks (CPU model, ISA, logical,
// physical and usable CPUs, caches, host, the BLAS the baselines load). Every working directory of
// the user reads the same record. Writes are atomic (rename) and made under a lock file beside the
// record, so a stale mark never lands on a newer measurement than the one it was about.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/eval/machine.h"

namespace kforge::eval {

std::string machine_key(const MachineProfile& described);
std::filesystem::path peak_file(const std::filesystem::path& cache_dir,
                                const MachineProfile& described);

// The record if it is this machine's (nullopt: absent, unreadable, or written for another key).
std::optional<nlohmann::json> read_peak_record(const std::filesystem::path& file,
                                               const std::string& key);
Status write_peak_record(const std::filesystem::path& file, const nlohmann::json& record);
// Marks the record stale with `evidence` ({"reason", "rate", "metric"}), if it still holds the
// measurement taken at `measured_unix` and is not provisional (that one is re-measured anyway).
// True when it marked.
Result<bool> mark_peaks_stale(const std::filesystem::path& file, double measured_unix,
                              const nlohmann::json& evidence);

// Why the record's peaks must be measured again, "" when they need not: never measured, marked
// stale, implausible, or provisional for longer than `provisional_retry_s`.
std::string remeasure_reason(const nlohmann::json& record, int cpus, double now_unix,
                             double provisional_retry_s);

// The record of a new measurement. When it is provisional, `previous` (the record it replaces)
// lends its better rates: a busy run only ever reads low. Rates a stale mark claimed, that this
// quiet measurement still does not reach, are kept as explained (not evidence of low peaks).
nlohmann::json peak_record(const std::string& key, const MachineProfile& described,
                           const PeakMeasurement& m, const std::optional<nlohmann::json>& previous,
                           double now_unix);
// `m` with the peaks of its cached record (m.peak_file) when that record holds a newer measurement
// than m's (re-measured by this or another process since m was read); nullopt when it does not,
// or when m has no record. A long run reads it before each request, so it never quotes a peak
// measured under load after a quieter measurement replaced it.
std::optional<MachineProfile> newer_peaks(const MachineProfile& m);
// The record's peaks into `m`.
void apply_peak_record(MachineProfile& m, const nlohmann::json& record,
                       const std::filesystem::path& file);

}  // namespace kforge::eval
