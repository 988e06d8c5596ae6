// kforge-run-cuda LIBRARY [--host-memory] [--trusted] [--unwalled]: holds one kernel's shared
// object and its buffers, and
// serves kforge's requests on fd 3 (cuda_wire.h) until kforge closes it. With the device (the
// default) buffers are device memory from the driver API (libcuda, opened at run time), the
// kernel's entry is called with them and a stream of this process, and every call ends with
// cuCtxSynchronize: the whole context, so work the kernel put on another stream, or launched from
// a graph, is finished (or has failed) before the reply; kforge then peeks at the outputs on a
// stream that waits for nothing (work launched after the reply is not in them), synchronizes the
// context again and reads them once more (gpu_judge.h). --host-memory runs the same protocol
// with host buffers and no device: kforge's tests drive the process, the watchdog, the wire and
// the walls with a host-compiled kernel on machines without a GPU.
// The walls (cuda_sandbox.h) go up after the device is ready and before the kernel's library is
// opened; --trusted (an expert, a baseline) gets the looser set, --unwalled (under
// compute-sanitizer or Nsight Compute, which talk to their front end) none.
// Nothing this process says is a verdict or a time: kforge times each call on its own clock and
// compares the bytes it reads back.
#include <dlfcn.h>
#include <signal.h>
#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kforge/runner/cuda_perturb_ptx.h"  // generated
#include "kforge/runner/cuda_sandbox.h"
#include "kforge/runner/cuda_wire.h"
#include "kforge/runner/sandbox.h"

namespace {

using namespace kforge::runner::cuda_wire;
using kforge::runner::kPerturbPtx;
constexpr int kChannel = 3;
constexpr int kMaxArgs = 24;

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The kernel's entry takes N pointers and the stream (a pointer too): all in the integer
// registers or on the stack alike, so one cast per argument count calls it.
template <std::size_t... I>
void call_entry(void* entry, void* const* args, void* stream, std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, static_cast<void*>(nullptr))..., void*);
  reinterpret_cast<Fn>(entry)(args[I]..., stream);
}

template <std::size_t N = 1>
bool call_n(void* entry, const std::vector<void*>& args, void* stream) {
  if constexpr (N > kMaxArgs) {
    return false;
  } else {
    if (args.size() == N) {
      call_entry(entry, args.data(), stream, std::make_index_sequence<N>{});
      return true;
    }
    return call_n<N + 1>(entry, args, stream);
  }
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string init() = 0;  // empty: ready
  virtual std::pair<void*, std::string> allocate(std::size_t bytes) = 0;
  virtual std::string upload(void* to, const void* from, std::size_t n) = 0;
  virtual std::string download(void* to, const void* from, std::size_t n) = 0;
  // The bytes as they are now, ordered after nothing the kernel launched.
  virtual std::string peek(void* to, const void* from, std::size_t n) = 0;
  virtual void* stream() = 0;
  virtual std::string synchronize() = 0;
  virtual std::string flush_l2() = 0;

  // The steps of a timed batch (serve_batch), on the kernel's stream unless said otherwise.
  // Empty: the device can time batches; else why not (the judge then times call by call).
  virtual std::string batch_support() const = 0;
  virtual std::string copy(void* to, const void* from, std::size_t n) = 0;
  virtual std::string scale(Fresh how, void* to, const void* from, const void* table,
                            std::size_t bytes) = 0;
  virtual std::string fill(void* to, unsigned char byte, std::size_t n) = 0;
  virtual std::string enqueue_l2_flush() = 0;
  virtual std::string wait_stream() = 0;
  virtual std::string record_start() = 0;
  virtual std::string record_end() = 0;
  virtual std::string elapsed_ms(double& ms) = 0;  // between the last start and end
  // Copies on a stream that waits for nothing the kernel launched, and waits for the copy.
  virtual std::string snapshot(void* to, const void* from, std::size_t n) = 0;
};

class HostBackend : public Backend {
 public:
  std::string batch_support() const override { return {}; }
  std::string copy(void* to, const void* from, std::size_t n) override {
    std::memcpy(to, from, n);
    return {};
  }
  std::string scale(Fresh how, void* to, const void* from, const void* table,
                    std::size_t bytes) override {
    if (how == Fresh::scale_f32)
      scale_typed(static_cast<float*>(to), static_cast<const float*>(from),
                  static_cast<const float*>(table), bytes / 4);
    else
      scale_typed(static_cast<double*>(to), static_cast<const double*>(from),
                  static_cast<const double*>(table), bytes / 8);
    return {};
  }
  std::string fill(void* to, unsigned char byte, std::size_t n) override {
    std::memset(to, byte, n);
    return {};
  }
  std::string enqueue_l2_flush() override { return {}; }
  std::string wait_stream() override { return {}; }
  std::string record_start() override {
    start_ = now_ms();
    return {};
  }
  std::string record_end() override {
    end_ = now_ms();
    return {};
  }
  std::string elapsed_ms(double& ms) override {
    ms = end_ - start_;
    return {};
  }
  std::string snapshot(void* to, const void* from, std::size_t n) override {
    return copy(to, from, n);
  }
  std::string init() override { return {}; }
  std::pair<void*, std::string> allocate(std::size_t bytes) override {
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    return {p, p ? "" : "out of host memory"};
  }
  std::string upload(void* to, const void* from, std::size_t n) override {
    std::memcpy(to, from, n);
    return {};
  }
  std::string download(void* to, const void* from, std::size_t n) override {
    std::memcpy(to, from, n);
    return {};
  }
  std::string peek(void* to, const void* from, std::size_t n) override {
    return download(to, from, n);
  }
  void* stream() override { return nullptr; }
  std::string synchronize() override { return {}; }
  std::string flush_l2() override { return {}; }

 private:
  // The host twin of cuda_perturb.ptx: dst[i] = src[i] * table[i % 4096].
  template <typename T>
  static void scale_typed(T* to, const T* from, const T* table, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) to[i] = from[i] * table[i % kTableElements];
  }
  double start_ = 0, end_ = 0;
};

// The driver API by its ABI (cuda.h): CUdeviceptr is a 64-bit integer, a stream and a context
// are pointers, results are ints.
class DeviceBackend : public Backend {
 public:
  std::string init() override {
    lib_ = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib_) return "no CUDA device: libcuda.so.1 is not installed";
    if (!bind("cuInit", init_) || !bind("cuDeviceGet", device_get_) ||
        !bind("cuDevicePrimaryCtxRetain", retain_) || !bind("cuCtxSetCurrent", set_current_) ||
        !bind("cuMemAlloc_v2", alloc_) || !bind("cuMemcpyHtoD_v2", htod_) ||
        !bind("cuMemcpyDtoH_v2", dtoh_) || !bind("cuCtxSynchronize", sync_) ||
        !bind("cuStreamCreate", stream_create_) || !bind("cuMemsetD8_v2", memset_) ||
        !bind("cuDeviceGetAttribute", attribute_) || !bind("cuMemcpyDtoHAsync_v2", dtoh_async_) ||
        !bind("cuStreamSynchronize", stream_sync_))
      return "libcuda.so.1 lacks the driver API kforge-run-cuda calls";
    bind("cuGetErrorString", error_string_);
    bind_batch_api();
    int device = 0;
    void* ctx = nullptr;
    if (int r = init_(0)) return error("cuInit", r);
    if (int r = device_get_(&device, 0)) return error("cuDeviceGet", r);
    // The primary context: the one the CUDA runtime inside the kernel's library uses too.
    if (int r = retain_(&ctx, device)) return error("cuDevicePrimaryCtxRetain", r);
    if (int r = set_current_(ctx)) return error("cuCtxSetCurrent", r);
    if (int r = stream_create_(&stream_, 0)) return error("cuStreamCreate", r);
    // CU_STREAM_NON_BLOCKING: a copy here does not wait for the legacy stream, nor for any other.
    if (int r = stream_create_(&peek_stream_, 1)) return error("cuStreamCreate (peek)", r);
    int l2 = 0;
    attribute_(&l2, 38 /* CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE */, device);
    // Twice the L2, written before every timed call, evicts whatever the last call left.
    flush_bytes_ = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), 8u << 20);
    if (int r = alloc_(&flush_, flush_bytes_)) return error("cuMemAlloc (L2 flush buffer)", r);
    prepare_batches();
    return {};
  }
  std::pair<void*, std::string> allocate(std::size_t bytes) override {
    unsigned long long p = 0;
    if (int r = alloc_(&p, bytes)) return {nullptr, error("cuMemAlloc", r)};
    // A CUdeviceptr is an address in the unified space: the kernel takes it as a pointer.
    return {reinterpret_cast<void*>(p), {}};  // NOLINT(performance-no-int-to-ptr)
  }
  std::string upload(void* to, const void* from, std::size_t n) override {
    int r = htod_(reinterpret_cast<unsigned long long>(to), from, n);
    return r ? error("cuMemcpyHtoD", r) : "";
  }
  std::string download(void* to, const void* from, std::size_t n) override {
    int r = dtoh_(to, reinterpret_cast<unsigned long long>(from), n);
    return r ? error("cuMemcpyDtoH", r) : "";
  }
  std::string peek(void* to, const void* from, std::size_t n) override {
    int r = dtoh_async_(to, reinterpret_cast<unsigned long long>(from), n, peek_stream_);
    if (r == 0) r = stream_sync_(peek_stream_);
    return r ? error("cuMemcpyDtoHAsync (peek)", r) : "";
  }
  void* stream() override { return stream_; }
  std::string synchronize() override {
    int r = sync_();
    return r ? error("the kernel", r) : "";
  }
  std::string flush_l2() override {
    if (int r = memset_(flush_, 0x5A, flush_bytes_)) return error("cuMemsetD8 (L2 flush)", r);
    return synchronize();
  }

  std::string batch_support() const override { return batch_unsupported_; }
  std::string copy(void* to, const void* from, std::size_t n) override {
    int r = dtod_async_(ptr(to), ptr(from), n, stream_);
    return r ? error("cuMemcpyDtoDAsync (a pristine input)", r) : "";
  }
  std::string scale(Fresh how, void* to, const void* from, const void* table,
                    std::size_t bytes) override {
    const bool f32 = how == Fresh::scale_f32;
    unsigned long long dst = ptr(to), src = ptr(from), tab = ptr(table);
    unsigned long long n = bytes / (f32 ? 4 : 8);
    void* params[] = {&dst, &src, &tab, &n};
    // A grid-stride loop: enough blocks to fill the device, no more than the elements need.
    constexpr unsigned kThreads = 256;
    const auto blocks = static_cast<unsigned>(
        std::clamp<unsigned long long>((n + kThreads - 1) / kThreads, 1, 65535));
    int r = launch_(f32 ? perturb_f32_ : perturb_f64_, blocks, 1, 1, kThreads, 1, 1, 0, stream_,
                    params, nullptr);
    return r ? error("launching kforge's input perturbation", r) : "";
  }
  std::string fill(void* to, unsigned char byte, std::size_t n) override {
    int r = memset_async_(ptr(to), byte, n, stream_);
    return r ? error("cuMemsetD8Async (poisoning an output)", r) : "";
  }
  std::string enqueue_l2_flush() override {
    int r = memset_async_(flush_, 0x5A, flush_bytes_, stream_);
    return r ? error("cuMemsetD8Async (L2 flush)", r) : "";
  }
  std::string wait_stream() override {
    int r = stream_sync_(stream_);
    return r ? error("preparing a timed call", r) : "";
  }
  std::string record_start() override {
    int r = event_record_(start_event_, stream_);
    return r ? error("cuEventRecord (start)", r) : "";
  }
  std::string record_end() override {
    int r = event_record_(end_event_, stream_);
    return r ? error("cuEventRecord (end)", r) : "";
  }
  std::string elapsed_ms(double& ms) override {
    float f = 0;
    int r = elapsed_(&f, start_event_, end_event_);
    ms = f;
    return r ? error("cuEventElapsedTime", r) : "";
  }
  std::string snapshot(void* to, const void* from, std::size_t n) override {
    int r = dtod_async_(ptr(to), ptr(from), n, peek_stream_);
    if (r == 0) r = stream_sync_(peek_stream_);
    return r ? error("cuMemcpyDtoDAsync (an output's snapshot)", r) : "";
  }

 private:
  static unsigned long long ptr(const void* p) { return reinterpret_cast<unsigned long long>(p); }

  void bind_batch_api() {
    if (!bind("cuModuleLoadData", module_load_) || !bind("cuModuleGetFunction", get_function_) ||
        !bind("cuLaunchKernel", launch_) || !bind("cuMemcpyDtoDAsync_v2", dtod_async_) ||
        !bind("cuMemsetD8Async", memset_async_) || !bind("cuEventCreate", event_create_) ||
        !bind("cuEventRecord", event_record_) ||
        !(bind("cuEventElapsedTime_v2", elapsed_) || bind("cuEventElapsedTime", elapsed_)))
      batch_unsupported_ = "libcuda.so.1 lacks the calls of timed batches";
  }
  // kforge's perturbation kernel (PTX, compiled by the driver here, before the walls) and the two
  // events around each timed call. A failure leaves the device usable, timed call by call.
  void prepare_batches() {
    if (!batch_unsupported_.empty()) return;
    void* module = nullptr;
    if (int r = module_load_(&module, kPerturbPtx)) {
      batch_unsupported_ = error("loading kforge's perturbation kernel (cuModuleLoadData)", r);
      return;
    }
    for (auto [f, name] : {std::pair{&perturb_f32_, "kforge_perturb_f32"},
                           std::pair{&perturb_f64_, "kforge_perturb_f64"}})
      if (int r = get_function_(f, module, name)) {
        batch_unsupported_ = error("cuModuleGetFunction (kforge's perturbation kernel)", r);
        return;
      }
    for (void** e : {&start_event_, &end_event_})
      if (int r = event_create_(e, 0)) {
        batch_unsupported_ = error("cuEventCreate", r);
        return;
      }
  }

  template <typename F>
  bool bind(const char* name, F& f) {
    f = reinterpret_cast<F>(::dlsym(lib_, name));
    return f != nullptr;
  }
  std::string error(const char* what, int r) const {
    const char* s = nullptr;
    if (error_string_ && error_string_(r, &s) == 0 && s)
      return std::string(what) + ": " + s + " (CUDA error " + std::to_string(r) + ")";
    return std::string(what) + ": CUDA error " + std::to_string(r);
  }
  void* lib_ = nullptr;
  int (*init_)(unsigned) = nullptr;
  int (*device_get_)(int*, int) = nullptr;
  int (*retain_)(void**, int) = nullptr;
  int (*set_current_)(void*) = nullptr;
  int (*alloc_)(unsigned long long*, std::size_t) = nullptr;
  int (*htod_)(unsigned long long, const void*, std::size_t) = nullptr;
  int (*dtoh_)(void*, unsigned long long, std::size_t) = nullptr;
  int (*sync_)() = nullptr;
  int (*stream_create_)(void**, unsigned) = nullptr;
  int (*memset_)(unsigned long long, unsigned char, std::size_t) = nullptr;
  int (*attribute_)(int*, int, int) = nullptr;
  int (*dtoh_async_)(void*, unsigned long long, std::size_t, void*) = nullptr;
  int (*stream_sync_)(void*) = nullptr;
  int (*error_string_)(int, const char**) = nullptr;
  int (*module_load_)(void**, const void*) = nullptr;
  int (*get_function_)(void**, void*, const char*) = nullptr;
  int (*launch_)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                 void**, void**) = nullptr;
  int (*dtod_async_)(unsigned long long, unsigned long long, std::size_t, void*) = nullptr;
  int (*memset_async_)(unsigned long long, unsigned char, std::size_t, void*) = nullptr;
  int (*event_create_)(void**, unsigned) = nullptr;
  int (*event_record_)(void*, void*) = nullptr;
  int (*elapsed_)(float*, void*, void*) = nullptr;
  std::string batch_unsupported_;
  void* perturb_f32_ = nullptr;
  void* perturb_f64_ = nullptr;
  void* start_event_ = nullptr;
  void* end_event_ = nullptr;
  void* stream_ = nullptr;
  void* peek_stream_ = nullptr;
  unsigned long long flush_ = 0;
  std::size_t flush_bytes_ = 0;
};

bool reply(std::uint32_t status, std::uint32_t value, const void* payload, std::size_t n) {
  Reply r{status, value, n};
  return write_all(kChannel, &r, sizeof r) && (n == 0 || write_all(kChannel, payload, n));
}

bool reply_error(const std::string& text) { return reply(1, 0, text.data(), text.size()); }

using Buffers = std::vector<std::pair<void*, std::size_t>>;

// A time_calls request's payload, read and checked against the buffers kforge allocated.
struct Batch {
  BatchHeader header;
  std::vector<BatchInput> inputs;
  std::vector<std::uint32_t> outputs, snapshots;
  const char* tables = nullptr;
  std::size_t table_total = 0;
};

bool parse_batch(const std::vector<char>& payload, const Buffers& buffers, Batch& b) {
  std::size_t at = 0;
  auto take = [&](void* to, std::size_t n) {
    if (at + n > payload.size()) return false;
    std::memcpy(to, payload.data() + at, n);
    at += n;
    return true;
  };
  auto& h = b.header;
  if (!take(&h, sizeof h) || h.calls == 0 || h.calls > 4096 || h.inputs + h.outputs > kMaxArgs)
    return false;
  b.inputs.resize(h.inputs);
  b.outputs.resize(h.outputs);
  b.snapshots.resize(std::size_t{h.calls} * h.outputs);
  if (!take(b.inputs.data(), b.inputs.size() * sizeof(BatchInput)) ||
      !take(b.outputs.data(), b.outputs.size() * 4) ||
      !take(b.snapshots.data(), b.snapshots.size() * 4))
    return false;
  auto fits = [&](std::uint32_t id, std::size_t bytes) {
    return id < buffers.size() && bytes <= buffers[id].second;
  };
  for (const auto& in : b.inputs) {
    if (!fits(in.buffer, in.bytes) || !fits(in.pristine, in.bytes) ||
        static_cast<std::uint32_t>(in.fresh) > 2)
      return false;
    b.table_total += table_bytes(in.fresh) * h.calls;
  }
  for (auto o : b.outputs)
    if (o >= buffers.size()) return false;
  for (std::size_t k = 0; k < b.snapshots.size(); ++k)
    if (!fits(b.snapshots[k], buffers[b.outputs[k % h.outputs]].second)) return false;
  if (b.table_total > 0 && !fits(h.table_buffer, b.table_total)) return false;
  b.tables = payload.data() + at;
  return at + b.table_total == payload.size();
}

// Fresh inputs, poisoned outputs and a cold L2 for call k, all on the kernel's stream, and the
// device idle before the call starts (none of it is timed).
std::string prepare_call(Backend& be, const Batch& b, const Buffers& buffers, std::uint32_t k) {
  // The table buffer's id is checked only when there are tables (parse_batch).
  const char* table_base =
      b.table_total > 0 ? static_cast<const char*>(buffers[b.header.table_buffer].first) : nullptr;
  std::size_t table_at = k * (b.table_total / b.header.calls);  // each call's tables, in turn
  for (const auto& in : b.inputs) {
    void* to = buffers[in.buffer].first;
    const void* from = buffers[in.pristine].first;
    auto err = in.fresh == Fresh::copy
                   ? be.copy(to, from, in.bytes)
                   : be.scale(in.fresh, to, from, table_base + table_at, in.bytes);
    if (!err.empty()) return err;
    table_at += table_bytes(in.fresh);
  }
  for (auto o : b.outputs)
    if (auto err = be.fill(buffers[o].first, 0xFF, buffers[o].second); !err.empty()) return err;
  if (auto err = be.enqueue_l2_flush(); !err.empty()) return err;
  return be.wait_stream();
}

// The call between its events, then the whole context synchronized, then the outputs copied
// before anything launched after the return can finish.
std::string timed_call(Backend& be, void* entry, const Batch& b, const Buffers& buffers,
                       std::uint32_t k, CallTimes& t) {
  std::vector<void*> args;
  for (const auto& in : b.inputs) args.push_back(buffers[in.buffer].first);
  for (auto o : b.outputs) args.push_back(buffers[o].first);
  const double t0 = now_ms();
  if (auto err = be.record_start(); !err.empty()) return err;
  if (!(b.header.flags & kNullCall) && !call_n(entry, args, be.stream()))
    return "more arguments than kforge-run-cuda can pass";
  if (auto err = be.record_end(); !err.empty()) return err;
  if (auto err = be.synchronize(); !err.empty()) return err;
  t.host_ms = now_ms() - t0;
  if (auto err = be.elapsed_ms(t.device_ms); !err.empty()) return err;
  for (std::size_t o = 0; o < b.outputs.size(); ++o) {
    const auto& out = buffers[b.outputs[o]];
    auto err =
        be.snapshot(buffers[b.snapshots[k * b.outputs.size() + o]].first, out.first, out.second);
    if (!err.empty()) return err;
  }
  return {};
}

// 0: served; 2: a malformed request; -1: the channel broke.
int serve_batch(Backend& be, void* entry, const Request& q, const Buffers& buffers) {
  std::vector<char> payload(q.length);
  if (!read_all(kChannel, payload.data(), payload.size())) return -1;
  Batch b;
  if (!parse_batch(payload, buffers, b)) return 2;
  if (auto why = be.batch_support(); !why.empty())
    return reply(kUnsupported, 0, why.data(), why.size()) ? 0 : -1;
  if (b.table_total > 0)
    if (auto err = be.upload(buffers[b.header.table_buffer].first, b.tables, b.table_total);
        !err.empty())
      return reply_error(err) ? 0 : -1;
  std::vector<CallTimes> times(b.header.calls);
  for (std::uint32_t k = 0; k < b.header.calls; ++k) {
    auto err = prepare_call(be, b, buffers, k);
    if (err.empty()) err = timed_call(be, entry, b, buffers, k, times[k]);
    if (!err.empty())
      return reply_error("timed call " + std::to_string(k + 1) + " of the batch: " + err) ? 0 : -1;
  }
  return reply(0, 0, times.data(), times.size() * sizeof(CallTimes)) ? 0 : -1;
}

int serve(Backend& b, void* entry) {
  Buffers buffers;
  std::vector<char> staging;
  for (Request q; read_all(kChannel, &q, sizeof q);) {
    bool ok = true;
    switch (q.op) {
      case Op::allocate: {
        auto [p, err] = b.allocate(q.length);
        if (!err.empty()) {
          ok = reply_error(err);
          break;
        }
        buffers.emplace_back(p, q.length);
        ok = reply(0, static_cast<std::uint32_t>(buffers.size() - 1), nullptr, 0);
        break;
      }
      case Op::upload: {
        staging.resize(q.length);
        if (!read_all(kChannel, staging.data(), q.length)) return 0;
        if (q.id >= buffers.size() || q.length > buffers[q.id].second) return 2;
        auto err = b.upload(buffers[q.id].first, staging.data(), q.length);
        ok = err.empty() ? reply(0, 0, nullptr, 0) : reply_error(err);
        break;
      }
      case Op::download:
      case Op::peek: {
        if (q.id >= buffers.size() || q.length > buffers[q.id].second) return 2;
        staging.resize(q.length);
        auto err = q.op == Op::peek ? b.peek(staging.data(), buffers[q.id].first, q.length)
                                    : b.download(staging.data(), buffers[q.id].first, q.length);
        ok = err.empty() ? reply(0, 0, staging.data(), q.length) : reply_error(err);
        break;
      }
      case Op::synchronize: {
        auto err = b.synchronize();
        ok = err.empty() ? reply(0, 0, nullptr, 0) : reply_error(err);
        break;
      }
      case Op::call: {
        std::vector<std::uint32_t> ids(q.id);
        if (!read_all(kChannel, ids.data(), ids.size() * sizeof(std::uint32_t))) return 0;
        std::vector<void*> args;
        for (auto id : ids) {
          if (id >= buffers.size()) return 2;
          args.push_back(buffers[id].first);
        }
        if (!call_n(entry, args, b.stream())) {
          ok = reply_error("more arguments than kforge-run-cuda can pass");
          break;
        }
        auto err = b.synchronize();
        ok = err.empty() ? reply(0, 0, nullptr, 0) : reply_error(err);
        break;
      }
      case Op::gather: {
        std::vector<Range> ranges(q.length / sizeof(Range));
        if (q.length % sizeof(Range) != 0 ||
            !read_all(kChannel, ranges.data(), ranges.size() * sizeof(Range)))
          return 2;
        if (q.id >= buffers.size()) return 2;
        std::size_t total = 0;
        for (const auto& r : ranges) {
          if (r.offset > buffers[q.id].second || r.length > buffers[q.id].second - r.offset)
            return 2;
          total += r.length;
        }
        staging.resize(total);
        std::string err;
        std::size_t at = 0;
        for (const auto& r : ranges) {
          if (err.empty())
            err = b.download(staging.data() + at,
                             static_cast<char*>(buffers[q.id].first) + r.offset, r.length);
          at += r.length;
        }
        ok = err.empty() ? reply(0, 0, staging.data(), total) : reply_error(err);
        break;
      }
      case Op::time_calls: {
        const int r = serve_batch(b, entry, q, buffers);
        if (r > 0) return r;
        ok = r == 0;
        break;
      }
      case Op::flush_l2: {
        auto err = b.flush_l2();
        ok = err.empty() ? reply(0, 0, nullptr, 0) : reply_error(err);
        break;
      }
      default:
        return 2;
    }
    if (!ok) return 0;
  }
  return 0;
}

struct Args {
  const char* library = nullptr;
  bool host = false, trusted = false, unwalled = false;
};

bool parse_args(int argc, char** argv, Args& a) {
  if (argc < 2) return false;
  a.library = argv[1];
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--host-memory") == 0)
      a.host = true;
    else if (std::strcmp(argv[i], "--trusted") == 0)
      a.trusted = true;
    else if (std::strcmp(argv[i], "--unwalled") == 0)
      a.unwalled = true;
    else
      return false;
  }
  return true;
}

// Landlock, no file growth, the seccomp filter (untrusted only): after this the process can
// touch only what cuda_sandbox.h lists. The kernel's libraries are loaded first, from the paths
// the loader resolves, so loading the kernel under the walls opens nothing but its own file.
std::string raise_walls(const Args& a) {
  namespace r = kforge::runner;
  auto deps = r::resolve_dependencies(a.library);
  if (!deps) return deps.error().message;
  for (const auto& d : *deps)
    if (!::dlopen(d.c_str(), RTLD_NOW | RTLD_GLOBAL))
      return std::string("preloading ") + d.string() + ": " + ::dlerror();
  std::string error;
  // Without Landlock (an old kernel) the filter still holds; kforge-run accepts the same. A
  // Landlock that exists and fails is an error.
  if (r::restrict_filesystem(r::cuda_runner_view({a.library, *deps, a.trusted}), error) == 0 &&
      kforge::core::landlock_abi() > 0)
    return "Landlock: " + error;
  r::forbid_file_growth();
  if (a.trusted) return {};
  r::report_forbidden_calls();
  if (auto st = r::install_cuda_kernel_filter(kChannel); !st) return st.error().message;
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  Args args;
  if (!parse_args(argc, argv, args)) {
    std::fprintf(stderr,
                 "usage: kforge-run-cuda LIBRARY [--host-memory] [--trusted] [--unwalled]\n");
    return 2;
  }
  const bool host = args.host;
  // The driver caches JIT-compiled code under $HOME; the walls would refuse it anyway.
  ::setenv("CUDA_CACHE_DISABLE", "1", 1);
  std::unique_ptr<Backend> backend;
  if (host)
    backend = std::make_unique<HostBackend>();
  else
    backend = std::make_unique<DeviceBackend>();
  // The device first: the kernel's library (and the CUDA runtime it loads) finds the context.
  if (auto err = backend->init(); !err.empty()) {
    reply_error(err);
    return 1;
  }
  if (!args.unwalled) {
    if (auto err = raise_walls(args); !err.empty()) {
      reply_error("raising the sandbox: " + err);
      return 1;
    }
  }
  void* lib = ::dlopen(args.library, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    reply_error(std::string("cannot load the kernel: ") + ::dlerror());
    return 1;
  }
  void* entry = ::dlsym(lib, "kernel");
  if (!entry) {
    reply_error("the library does not define `kernel`");
    return 1;
  }
  if (!reply(0, 0, nullptr, 0)) return 1;  // ready
  return serve(*backend, entry);
}
