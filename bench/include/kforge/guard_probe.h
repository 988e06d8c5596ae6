#pragma once
// For references: every clip, clamp, mask or select is written through these macros, so that the
// suite test (tests/suite/guards_test.cpp) can see it fire on the task's inputs at every size.
//
//   h = KFORGE_CLAMP("hardtanh", h, -2.0, 2.0);     // two guards: hardtanh.low and hardtanh.high
//   y = KFORGE_GUARD("relu", v < 0) ? 0.0 : v;      // true where the guard acts
//   KFORGE_GUARD_NOTE("expert_routed", taken[n]);   // a statement, counted only: other code
//                                                    // applies it, and the test cannot skip it
//
// KFORGE_GUARD's condition is true where the guard acts (clips, masks, takes the other branch),
// and the code must be written so that a false condition is what a kernel without the guard
// computes. In a normal build the macros are their plain expressions (KFORGE_GUARD_NOTE is
// nothing). Built with -DKFORGE_GUARD_PROBE, every call site counts how often its condition was
// true and false, and the library exports:
//   int kforge_guard_count()                 call sites seen so far
//   void kforge_guard_get(i, &name, &taken, &not_taken, &skippable)
//   void kforge_guard_reset()                zero every count
//   void kforge_guard_skip(name)             from now on KFORGE_GUARD(name, …) reads false
//                                            (nullptr: none), which turns the reference into a
//                                            kernel that lacks the guard
// Names must be string literals; a name may be used at several sites (their counts add up).

#ifndef KFORGE_GUARD_PROBE

#define KFORGE_GUARD(name, cond) static_cast<bool>(cond)
#define KFORGE_GUARD_NOTE(name, cond) static_cast<void>(0)

#else

#include <atomic>
#include <cstdint>
#include <cstring>

namespace kforge_guard {

struct Site {
  const char* name;
  bool skippable;
  std::atomic<std::uint64_t> taken{0}, not_taken{0};
  std::atomic<bool> skipped{false};
  Site* next = nullptr;
};

inline std::atomic<Site*> sites{nullptr};
inline char skip_name[256] = {};  // written only between calls of the kernel

inline bool skip_matches(const Site& s) {
  return s.skippable && skip_name[0] && std::strcmp(s.name, skip_name) == 0;
}

// Called once per call site (a function-local static), from any thread.
inline Site* enroll(const char* name, bool skippable) {
  Site* s = new Site{name, skippable};
  s->skipped = skip_matches(*s);
  Site* head = sites.load();
  do s->next = head;
  while (!sites.compare_exchange_weak(head, s));
  return s;
}

inline bool count(Site& s, bool cond) {
  (cond ? s.taken : s.not_taken).fetch_add(1, std::memory_order_relaxed);
  return cond && !s.skipped.load(std::memory_order_relaxed);
}

}  // namespace kforge_guard

#define KFORGE_GUARD_SITE_(name, cond, skippable)                                        \
  ([&]() -> bool {                                                                       \
    static ::kforge_guard::Site* kforge_site_ = ::kforge_guard::enroll(name, skippable); \
    return ::kforge_guard::count(*kforge_site_, static_cast<bool>(cond));                \
  }())
#define KFORGE_GUARD(name, cond) KFORGE_GUARD_SITE_(name, cond, true)
#define KFORGE_GUARD_NOTE(name, cond) static_cast<void>(KFORGE_GUARD_SITE_(name, cond, false))

extern "C" __attribute__((visibility("default"))) int kforge_guard_count() {
  int n = 0;
  for (auto* s = kforge_guard::sites.load(); s; s = s->next) ++n;
  return n;
}

extern "C" __attribute__((visibility("default"))) void kforge_guard_get(
    int index, const char** name, std::uint64_t* taken, std::uint64_t* not_taken, int* skippable) {
  auto* s = kforge_guard::sites.load();
  for (int i = 0; s && i < index; ++i) s = s->next;
  if (!s) return;
  *name = s->name;
  *taken = s->taken.load();
  *not_taken = s->not_taken.load();
  *skippable = s->skippable;
}

extern "C" __attribute__((visibility("default"))) void kforge_guard_reset() {
  for (auto* s = kforge_guard::sites.load(); s; s = s->next) s->taken = s->not_taken = 0;
}

extern "C" __attribute__((visibility("default"))) void kforge_guard_skip(const char* name) {
  std::strncpy(kforge_guard::skip_name, name ? name : "", sizeof kforge_guard::skip_name - 1);
  for (auto* s = kforge_guard::sites.load(); s; s = s->next)
    s->skipped = kforge_guard::skip_matches(*s);
}

#endif

// std::clamp(v, lo, hi) as two guards, name ".low" (v < lo) and name ".high" (hi < v).
#define KFORGE_CLAMP(name, v, lo, hi)                                        \
  ([&](auto kforge_v_, auto kforge_lo_, auto kforge_hi_) {                   \
    return KFORGE_GUARD(name ".low", kforge_v_ < kforge_lo_)    ? kforge_lo_ \
           : KFORGE_GUARD(name ".high", kforge_hi_ < kforge_v_) ? kforge_hi_ \
                                                                : kforge_v_; \
  }((v), (lo), (hi)))
