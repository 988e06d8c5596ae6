#pragma once
// The walls around kforge-run-cuda, the process that holds a CUDA kernel: the same three as
// kforge-run's (sandbox.h), with the relaxations the NVIDIA driver needs and no more. Raised in
// order after the device is initialized (libcuda loaded, context and stream created, the L2
// flush buffer allocated) and before the kernel's library is opened, so its constructors and
// every call run inside them:
//   1. rlimits: no core files, no file may grow (set by the parent: the address space limit; see
//      cuda_process_device.cpp for why a device process gets RLIMIT_DATA instead);
//   2. Landlock: read-only system view shrunk to the kernel's library and the libraries it links
//      (resolved by the loader before the walls), the driver's /proc and /sys files; read-write
//      only the NVIDIA device nodes (the driver opens a new descriptor on them for mappings, and
//      issues its ioctls there); no TCP; no signals or abstract sockets beyond the process;
//   3. one seccomp filter (TSYNC: the driver's threads too), kforge-run's kernel filter plus:
//      - ioctl: the NVIDIA resource manager's requests (type 'F') and nvidia-uvm's (numbered
//        plainly, below 0x200, and UVM_INITIALIZE/UVM_DEINITIALIZE); a terminal query answers
//        ENOTTY; any other request traps;
//      - openat for reading and writing (never creating, truncating or appending): the device
//        nodes are opened O_RDWR; Landlock, not seccomp, decides which paths that reaches;
//      - sendto on the channel (the runner's replies);
//      - write/writev on any descriptor: the driver signals its own threads through eventfds and
//        pipes it creates; nothing writable on disk is reachable (Landlock, RLIMIT_FSIZE 0);
//      - poll/ppoll/epoll, eventfd2, pipe2, fcntl, dup: the driver's worker threads wait on them;
//      - getdents64, uname, ids, readlinkat, fstatfs: the driver enumerates /proc/driver/nvidia
//        and /dev/nvidia-caps and checks its environment;
//      - mbind/get_mempolicy/set_mempolicy and mlock/munlock: NUMA placement and pinned memory
//        of host staging buffers (bounded by RLIMIT_MEMLOCK);
//      - prctl only PR_SET_NAME/PR_GET_NAME (thread names); rt_sigaction for any signal but
//        SIGSYS (so no one can hide a trapped call by catching it); sigaltstack;
//      - socket(AF_UNIX) fails with EACCES (the driver asks nvidia-persistenced, optionally);
//        every other family traps, and connect, bind, sendmsg never pass;
//      - memfd_create fails with EPERM.
//    Still forbidden (trap): fork, vfork, clone without CLONE_THREAD, execve, ptrace, kill and
//    tgkill of others, seccomp, mount, bpf, and executable memory that is not a file mapping.
// Landlock binds the thread that raises it and the threads it starts later: the driver's own
// threads, started by cuInit before the walls, stay outside Landlock (the seccomp filter covers
// them: TSYNC). The kernel's code runs on the main thread, confined, and so does every thread it
// starts.
// None of this has been traced on a GPU by these rules' author: scripts/gpu-check runs a kernel
// under them on a device and names any call that trapped ("forbidden system call NAME").
//
// A trusted kernel (an expert, a PyTorch baseline: cuDNN and libtorch load libraries lazily and
// start threads the way they like) gets Landlock with the system and toolkit libraries readable
// and no seccomp filter. A run under a tool (compute-sanitizer, Nsight Compute: they inject a
// library that talks to their front end over sockets and shared memory) is not walled.

#include <filesystem>
#include <string>
#include <vector>

#include "kforge/core/landlock.h"
#include "kforge/core/result.h"

namespace kforge::runner {

struct CudaWallsOptions {
  std::filesystem::path library;                    // the kernel's shared object
  std::vector<std::filesystem::path> dependencies;  // what the loader resolved for it
  bool trusted = false;
  std::filesystem::path dev = "/dev";  // where the device nodes are (tests give another folder)
};

// The NVIDIA device nodes under `dev`: nvidiactl, nvidia0..N, nvidia-uvm, nvidia-uvm-tools (not
// nvidia-modeset: display only). Sorted.
std::vector<std::filesystem::path> nvidia_device_nodes(const std::filesystem::path& dev);

// The Landlock view of a kernel's process.
core::LandlockView cuda_runner_view(const CudaWallsOptions& options);

// The libraries `library` links, as the dynamic loader resolves them (its run path included),
// without running any of its code: `ld.so --list`. Not the loader itself or the vDSO.
Result<std::vector<std::filesystem::path>> resolve_dependencies(
    const std::filesystem::path& library);

// Installs the device process's seccomp filter (see above) on every thread. `channel_fd` is the
// channel to kforge.
Status install_cuda_kernel_filter(int channel_fd);
// The same filter in libseccomp's readable form (PFC), not loaded: for tests and gpu-check.
Result<std::string> cuda_kernel_filter_text(int channel_fd);

// Writes "kforge-run-cuda: forbidden system call NAME (NR)" to stderr when the filter traps a
// call, then dies of SIGSYS, so kforge's verdict can say which call it was.
void report_forbidden_calls();

}  // namespace kforge::runner
