"""kforge_worker.py: a kernel process for Python implementations (PyTorch, torch.compile, JAX).

kforge starts it as it starts kforge-run (eval/kernel_process.h): the venv's interpreter runs this
file with the control socket on descriptor 3, a clean environment, its own process group, and a
Landlock view the parent prepared before exec (the venv, the system libraries, the module's folder
and a scratch folder; no TCP). It speaks the same protocol as kforge-run (runner/protocol.h,
runner/control_page.h), so the parent poisons, times, snapshots and compares its calls exactly as
it does a C++ kernel's. Nothing it says decides a verdict or a time.

The first message is kforge-run's "kernel" setup (runner/job.h) with one more field:
  "python": {"module": path of the .py file, "callable": name of the function in it,
             "framework": "torch" | "torch-compile" | "torch-compile-max" | "jax" | "pallas",
             "task_dir": folder holding the kforge_task.py of this task and size,
             "dtype": "f32" | "bf16" (jax and pallas: the floating inputs are cast to bfloat16
                      for the callable, its outputs back to f32 for kforge's buffers)}
and the descriptors: the input sets (sealed, mapped read-only), the output sets (mapped
read-write), the control page. The callable takes the inputs in ABI order as framework arrays
shaped as kforge_task.INPUTS says and returns one array or a tuple in OUTPUTS order; the worker
copies what it returns into the parent's output buffers before it signals the return.

Before "ready": the module is imported and the callable compiled (jit / Inductor) and run on the
timing inputs until its time settles; "ready" reports that time (compile_s, warmup_s, never timed
by the parent), the per-call cost of copying the outputs (copy_ms: part of every timed call) and
the framework's version. After the warm-up: no file may grow (a peer's files up to 1 GiB, as
Inductor's cache needs), memory (RLIMIT_AS on the CPU, RLIMIT_DATA on an accelerator: see
memory_limit()) and CPU time are capped, a seccomp filter (on every thread) refuses processes,
exec, sockets and executable memory, and the worker only serves the control page.

A JAX worker (XLA, Pallas) first makes sure it has the backend kforge asked for (JAX_PLATFORMS):
when JAX cannot start it, the worker fails saying which backend was asked, which JAX found and
what here may be the cause (require_backend()), before any kernel code is loaded.

A Pallas kernel (framework "pallas", kforge_pallas.py) is untrusted: it is imported only after
its interpret mode is forced and a first seccomp filter holds (no processes, exec or sockets; JAX
still compiles, so executable memory stays allowed until the warm-up is over), and it is traced
and refused before its first call when it has no pallas_call or calls back to the host.
"""
import ctypes
import importlib.util
import json
import os
import platform
import resource
import socket
import sys
import time
import traceback

CHANNEL_FD = 3
PAGE = os.sysconf("SC_PAGE_SIZE")
PROT_NONE, PROT_READ, PROT_WRITE = 0, 1, 2
MAP_SHARED, MAP_PRIVATE, MAP_FIXED, MAP_ANONYMOUS, MAP_NORESERVE = 1, 2, 0x10, 0x20, 0x4000
SYS_FUTEX = {"x86_64": 202, "aarch64": 98}.get(platform.machine(), 202)
FUTEX_WAIT, FUTEX_WAKE = 0, 1
CALL, PROFILE, STOP, NOOP = 1, 2, 3, 4
FAULTED = 0xFFFFFFFF
DTYPES = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64"}
FRAMEWORKS = ("torch", "torch-compile", "torch-compile-max", "jax", "pallas")
BF16 = "bfloat16"

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
libc.syscall.restype = ctypes.c_long


class Failure(Exception):
    """Something the parent should read as the kernel's runtime error."""


class Refusal(Exception):
    """A rule of the target broken (kforge_pallas.Refused): the parent's sandbox_violation."""


# --- the channel -------------------------------------------------------------------------------

def channel():
    return socket.socket(fileno=CHANNEL_FD)


def send(sock, body):
    sock.send(json.dumps(body).encode())


def fail(sock, control, message, code, refused=False):
    """Reports an error, marks the control page as faulted (the parent is waiting on it), exits."""
    try:
        if refused:
            send(sock, {"op": "fault", "category": "refused", "detail": message[-4000:]})
        else:
            send(sock, {"op": "error", "message": message[-4000:]})
    except OSError:
        pass
    if control is not None:
        control.done = FAULTED
        control.wake_done()
    os._exit(code)


# --- shared memory -----------------------------------------------------------------------------

def layout(byte_sizes):
    """core::layout_tensors: each tensor in its own pages, its data ending where its pages end."""
    slots, offset = [], 0
    for size in byte_sizes:
        padded = (size + 63) // 64 * 64
        pages = max(PAGE, (padded + PAGE - 1) // PAGE * PAGE)
        slots.append((offset, pages, offset + pages - padded, size))
        offset += pages
    return slots


def guard_bytes(pages_bytes):
    g = min(max(pages_bytes, 1 << 20), 64 << 20)
    return (g + PAGE - 1) // PAGE * PAGE


def map_guarded(fd, slot, prot):
    """Maps one tensor between PROT_NONE guards, as runner/guarded_buffers.cpp does."""
    page_offset, pages_bytes, data_offset, _ = slot
    guard = guard_bytes(pages_bytes)
    base = libc.mmap(None, pages_bytes + 2 * guard, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
    if base in (None, ctypes.c_void_p(-1).value):
        raise Failure(f"reserving {pages_bytes} bytes: errno {ctypes.get_errno()}")
    pages = libc.mmap(base + guard, pages_bytes, prot, MAP_SHARED | MAP_FIXED, fd, page_offset)
    if pages in (None, ctypes.c_void_p(-1).value):
        raise Failure(f"mapping a buffer: {os.strerror(ctypes.get_errno())}")
    return pages + (data_offset - page_offset)


def map_set(np, fd, tensors, shapes, prot):
    arrays = []
    for (info, shape), slot in zip(zip(tensors, shapes), layout([t["bytes"] for t in tensors])):
        address = map_guarded(fd, slot, prot)
        raw = (ctypes.c_byte * info["bytes"]).from_address(address)
        a = np.frombuffer(raw, dtype=DTYPES[info["dtype"]], count=info["numel"]).reshape(shape)
        arrays.append(a)
    return arrays


class ControlPage:
    """runner::ControlPage: go, done, command, input_set, output_set (u32), profile_seconds."""

    def __init__(self, fd):
        self.address = libc.mmap(None, 32, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        if self.address in (None, ctypes.c_void_p(-1).value):
            raise Failure("mapping the control page")
        words = (ctypes.c_uint32 * 5).from_address(self.address)
        self.words = words

    @property
    def go(self):
        return self.words[0]

    @property
    def done(self):
        return self.words[1]

    @done.setter
    def done(self, value):
        self.words[1] = value

    def command(self):
        return self.words[2], self.words[3], self.words[4]

    def wait_go(self, seen):
        libc.syscall(SYS_FUTEX, ctypes.c_void_p(self.address), FUTEX_WAIT, ctypes.c_uint32(seen),
                     None, None, 0)

    def wake_done(self):
        libc.syscall(SYS_FUTEX, ctypes.c_void_p(self.address + 4), FUTEX_WAKE, 0x7FFFFFFF, None,
                     None, 0)


# --- the process ------------------------------------------------------------------------------

def pin_threads(threads):
    """The first `threads` CPUs kforge allows (the evaluation's CPUs, set before exec): the same
    CPUs a C++ kernel's threads get."""
    allowed = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, allowed[:threads] or allowed)


# A peer (PyTorch, torch.compile, XLA: trusted code a user would run) may write files as it would
# on a user's machine: Inductor writes its generated code and compiled objects to its cache when a
# call meets a shape it has not compiled. Landlock scopes that to the scratch folder and the cache.
# A candidate (a Pallas kernel) may grow no file, as a C++ candidate may not.
PEER_FILE_BYTES = 1 << 30
PEERS = ("torch", "torch-compile", "torch-compile-max", "jax")
COMPILING = ("torch-compile", "torch-compile-max")


def file_size_limit(framework):
    """Named peers only: a framework added later is a candidate's until it is listed here."""
    return PEER_FILE_BYTES if framework in PEERS else 0


def memory_limit(accelerator):
    """The rlimit that bounds the worker's memory, and what it counts now (bytes).

    On the CPU: RLIMIT_AS over the whole address space. On an accelerator RLIMIT_AS would hide the
    device: the CUDA driver reserves virtual ranges far beyond what it backs (unified addressing
    maps the device's memory into the process), and JAX drops a backend whose plugin cannot map
    them without a word (on an H200, under 8 GiB of address space `jax.devices()` was the CPU
    alone; under 32 GiB or none, the GPU). There RLIMIT_DATA bounds memory instead: it counts the
    private writable mappings (the heap, NumPy's and the frameworks' host buffers), not the
    driver's reservations or its shared mappings of the device, as for kforge-run-cuda's device
    process (targets/cuda_process_device.cpp)."""
    if not accelerator:
        with open("/proc/self/statm") as f:
            return resource.RLIMIT_AS, int(f.read().split()[0]) * PAGE
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmData:"):
                return resource.RLIMIT_DATA, int(line.split()[1]) * 1024
    raise Failure("/proc/self/status has no VmData line: the worker's memory cannot be bounded")


def close_walls(setup, framework, accelerator=False):
    """After the warm-up: file growth bounded (none for a candidate), memory and CPU time capped
    (runner/sandbox.h): memory_limit() says by which limit."""
    limit = file_size_limit(framework)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    which, used = memory_limit(accelerator)
    cap = used + setup["memory_bytes"] + (192 << 20) * (setup["threads"] + 2)
    resource.setrlimit(which, (cap, cap))


# --- the backend -------------------------------------------------------------------------------

JAX_FRAMEWORKS = ("jax", "pallas")


def asked_backend(framework):
    """The JAX platform kforge chose for this process (eval/jax_backend.h sets JAX_PLATFORMS);
    None for a PyTorch worker, which asks JAX for nothing."""
    if framework not in JAX_FRAMEWORKS:
        return None
    # The first platform named: a list ("cuda,cpu") would let JAX fall back to the next.
    return (os.environ.get("JAX_PLATFORMS") or "cpu").split(",")[0]


def lift_address_space_limit():
    """An accelerator's worker drops an inherited soft RLIMIT_AS (a shell's `ulimit -v`, a batch
    system's default) to its hard limit: below what the driver reserves it hides the device."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def gib(n):
    return f"{n / (1 << 30):.1f} GiB"


def module_found(name):
    import importlib.util
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # its parent package is missing
        return False


def backend_hints(asked):
    """Why a JAX backend may be missing here: what the process can see of its causes."""
    hints = []
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if asked != "cpu" and hard != resource.RLIM_INFINITY:
        hints.append(f"the address space is limited to {gib(hard)} (RLIMIT_AS, a hard limit "
                     "kforge inherited: `ulimit -v`?), and the CUDA driver reserves more than "
                     "that, so JAX drops the backend")
    if asked in ("cuda", "gpu"):
        if not any(module_found(m) for m in ("jax_plugins.xla_cuda13", "jax_plugins.xla_cuda12",
                                             "jax_cuda13_plugin", "jax_cuda12_plugin")):
            hints.append("the Python environment has no JAX CUDA plugin (pip install "
                         "'jax[cuda13]')")
        if not os.path.exists("/dev/nvidiactl"):
            hints.append("/dev/nvidiactl cannot be seen (no NVIDIA driver, or the process's view "
                         "lacks the device nodes)")
    elif asked == "tpu":
        try:
            accel = any(n.startswith("accel") for n in os.listdir("/dev"))
        except OSError:  # the worker's Landlock view lists no folder of /dev
            accel = any(os.path.exists(f"/dev/accel{i}") for i in range(8))
        if not accel:
            hints.append("no /dev/accel* TPU device can be seen")
    return hints


def jax_backends_found():
    """The platforms JAX can start in this process when none is forced (best effort: JAX's
    private API; a list of what failed to start otherwise)."""
    try:
        import jax
        from jax._src import xla_bridge
        jax.config.update("jax_platforms", None)
        xla_bridge._clear_backends()
        return sorted(xla_bridge.backends())
    except Exception as e:  # noqa: BLE001  (any failure: say so, never hide the first error)
        return [f"none could be listed ({type(e).__name__}: {str(e)[:200]})"]


def same_platform(asked, got):
    """JAX names the CUDA and ROCm backends' platform "gpu"."""
    return got == asked or (asked in ("cuda", "rocm", "gpu") and got == "gpu")


def require_backend(asked):
    """The backend kforge asked for, or a Failure saying which was asked, which JAX found and why
    that may be: a kernel meant for the GPU is never run on the CPU by a silent fall back."""
    import jax
    try:
        got = jax.default_backend()
        problem = "" if same_platform(asked, got) else f"JAX chose '{got}'"
    except Exception as e:  # noqa: BLE001  (JAX raises RuntimeError or its own errors)
        # JAX 0.10 skips a CUDA platform with no visible GPU and then fails an assertion with no
        # message: say what that means.
        problem = (f"{type(e).__name__}: {str(e)[:400]}" if str(e) else
                   f"JAX started no '{asked}' backend (an empty {type(e).__name__} inside JAX)")
    if not problem:
        return got
    hints = backend_hints(asked)
    raise Failure(f"asked for the '{asked}' backend; JAX found {jax_backends_found()}: {problem}"
                  + (". Likely: " + "; ".join(hints) if hints else ""))


# The running-stage filter of runner/sandbox.h, as far as a Python process allows: installed with
# TSYNC on every thread (the frameworks' pools included) once the warm-up is over, so compiling
# (which runs the C++ compiler and maps fresh code) is done. Refused with an errno, so the module
# sees an exception the parent reads as a runtime error: new processes and exec, sockets, ptrace
# and cross-process memory access, executable memory. x86_64 only (the numbers are its own).
SECCOMP_ALLOW, SECCOMP_KILL = 0x7FFF0000, 0x80000000
AUDIT_ARCH_X86_64 = 0xC000003E
DENIED = {"execve": 59, "execveat": 322, "fork": 57, "vfork": 58, "socket": 41,
          "socketpair": 53, "connect": 42, "bind": 49, "listen": 50, "accept": 43,
          "accept4": 288, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311}
CLONE, CLONE3, CLONE_THREAD = 56, 435, 0x10000
EXEC_MAPPINGS = (9, 10, 329)  # mmap, mprotect, pkey_mprotect with PROT_EXEC
# Calls that reach another process, refused outright: priorities, I/O priorities, thread signals
# by bare tid, setting limits, pidfds, another process's memory or pages, perf counters on others.
DENIED.update({"getpriority": 140, "setpriority": 141, "tkill": 200,
               "ioprio_set": 251, "ioprio_get": 252, "migrate_pages": 256, "move_pages": 279,
               "perf_event_open": 298, "kcmp": 312, "pidfd_send_signal": 424, "pidfd_open": 434,
               "pidfd_getfd": 438, "process_madvise": 440, "process_mrelease": 448})
# Calls whose first argument is a pid: allowed on pid 0 or this process only (a kernel once pinned
# the partner's threads onto one CPU and slowed it 8x; another could signal kforge).
SELF_SCOPED = {"rt_sigqueueinfo": 129, "sched_setparam": 142, "sched_getparam": 143,
               "sched_setscheduler": 144, "sched_getscheduler": 145,
               "sched_rr_get_interval": 148, "kill": 62, "sched_setaffinity": 203,
               "sched_getaffinity": 204, "tgkill": 234, "rt_tgsigqueueinfo": 297,
               "sched_setattr": 314, "sched_getattr": 315}
PRLIMIT64, SETRLIMIT, MADVISE = 302, 160, 28
# madvise advice that reaches pages shared with kforge: MADV_REMOVE, MADV_COLD, MADV_PAGEOUT,
# MADV_HWPOISON, MADV_SOFT_OFFLINE.
MADVISE_DENIED = (9, 20, 21, 100, 101)


def errno_ret(code):
    return 0x00050000 | code


def filter_program(exec_memory_denied=True):
    """The running stage (exec_memory_denied) or, for a Pallas kernel, the loading stage: the same
    rules but executable mappings, which XLA's JIT needs to compile the kernel, and which only
    the running stage (installed after the warm-up, with nothing left to compile) takes away."""
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    p = [(ld, 0, 0, 4), (jeq, 1, 0, AUDIT_ARCH_X86_64), (ret, 0, 0, SECCOMP_KILL), (ld, 0, 0, 0)]
    for nr in DENIED.values():
        p += [(jeq, 0, 1, nr), (ret, 0, 0, errno_ret(1))]  # EPERM
    p += [(jeq, 0, 1, CLONE3), (ret, 0, 0, errno_ret(38))]  # ENOSYS: glibc falls back to clone
    # clone: threads only (CLONE_THREAD in its first argument).
    p += [(jeq, 0, 4, CLONE), (ld, 0, 0, 16), (jset, 1, 0, CLONE_THREAD),
          (ret, 0, 0, errno_ret(1)), (ret, 0, 0, SECCOMP_ALLOW)]
    for nr in EXEC_MAPPINGS if exec_memory_denied else ():  # the protection: third argument
        p += [(jeq, 0, 4, nr), (ld, 0, 0, 32), (jset, 0, 1, 4),
              (ret, 0, 0, errno_ret(13)), (ret, 0, 0, SECCOMP_ALLOW)]
    p += self_scoped_rules(os.getpid(), limits_fixed=exec_memory_denied)
    return p + [(ret, 0, 0, SECCOMP_ALLOW)]


def self_scoped_rules(pid, limits_fixed):
    """Each ends in a return, so the accumulator needs no reload: the pid calls (first argument 0
    or `pid`, else EPERM), prlimit64 (this process's own limits; once `limits_fixed`, the running
    stage after close_walls() set them, reading only) and madvise."""
    ld, jeq, ret = 0x20, 0x15, 0x06
    allow, eperm = (ret, 0, 0, SECCOMP_ALLOW), (ret, 0, 0, errno_ret(1))
    p = [(jeq, 0, 1, SETRLIMIT), eperm] if limits_fixed else []
    for nr in SELF_SCOPED.values():
        # pid_t is 32 bits: the low word of the first argument (offset 16) is what the kernel uses.
        p += [(jeq, 0, 5, nr), (ld, 0, 0, 16), (jeq, 2, 0, 0), (jeq, 1, 0, pid), eperm, allow]
    # prlimit64(pid, resource, new_limit, old_limit): once the limits are fixed, new_limit (offset
    # 32, both words) must be NULL.
    if limits_fixed:
        p += [(jeq, 0, 9, PRLIMIT64), (ld, 0, 0, 32), (jeq, 0, 5, 0), (ld, 0, 0, 36),
              (jeq, 0, 3, 0), (ld, 0, 0, 16), (jeq, 2, 0, 0), (jeq, 1, 0, pid), eperm, allow]
    else:
        p += [(jeq, 0, 5, PRLIMIT64), (ld, 0, 0, 16), (jeq, 2, 0, 0), (jeq, 1, 0, pid), eperm,
              allow]
    p += [(jeq, 0, 1 + 2 * len(MADVISE_DENIED), MADVISE), (ld, 0, 0, 32)]
    for advice in MADVISE_DENIED:
        p += [(jeq, 0, 1, advice), eperm]
    return p + [allow]


def install_filter(exec_memory_denied=True):
    """Returns "" when the filter holds on every thread, else why not."""
    if platform.machine() != "x86_64":
        return f"no seccomp filter on {platform.machine()}"

    class Insn(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                    ("k", ctypes.c_uint32)]

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Insn))]

    insns = filter_program(exec_memory_denied)
    array = (Insn * len(insns))(*[Insn(*i) for i in insns])
    prog = Prog(len(insns), array)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS (Landlock set it already)
    r = libc.syscall(317, 1, 1, ctypes.byref(prog))  # seccomp(SET_MODE_FILTER, TSYNC)
    if r != 0:
        return f"seccomp refused (result {r}, errno {ctypes.get_errno()})"
    return ""


def load_callable(python):
    sys.path.insert(0, python["task_dir"])  # `import kforge_task`
    path = python["module"]
    spec = importlib.util.spec_from_file_location("kforge_peer_module", path)
    if spec is None:
        raise Failure(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, python["callable"], None)
    if not callable(fn):
        raise Failure(f"{path} defines no function {python['callable']}()")
    import kforge_task
    return fn, kforge_task


def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def check_result(task, outs, dtype="f32"):
    if len(outs) != len(task.OUTPUTS):
        raise Failure(f"returned {len(outs)} outputs; the task has {len(task.OUTPUTS)}")
    for (name, kind, shape), o in zip(task.OUTPUTS, outs):
        if tuple(o.shape) != tuple(shape):
            raise Failure(f"output '{name}' has shape {tuple(o.shape)}; the task says {tuple(shape)}")
        want = BF16 if dtype == "bf16" and kind == "f32" else DTYPES[kind]
        if str(o.dtype).split(".")[-1] != want:
            raise Failure(f"output '{name}' is {o.dtype}; the task says {want}")


def torch_caller(framework, fn, inputs, outputs, threads):
    import torch
    torch.set_num_threads(threads)
    run = fn
    if framework != "torch":
        mode = "max-autotune" if framework == "torch-compile-max" else "default"
        run = torch.compile(fn, mode=mode, dynamic=False)
    ins = [[torch.from_numpy(a) for a in s] for s in inputs]
    outs = [[torch.from_numpy(a) for a in s] for s in outputs]

    def call(set_index, out_index, checked=False):
        with torch.inference_mode():
            result = as_tuple(run(*ins[set_index]))
            if checked:
                check_result(call.task, result)
            for dest, r in zip(outs[out_index], result):
                dest.copy_(r)

    def copy_only(out_index):
        with torch.inference_mode():
            for dest in outs[out_index]:
                dest.copy_(dest.clone())

    return call, copy_only, "torch " + torch.__version__


def jax_caller(fn, inputs, outputs, dtype="f32", pallas=False):
    """jax.jit of the callable. Its inputs are cast to the dtype on every call (kforge perturbs
    the timing inputs between pairs), the same prelude for a Pallas kernel and its XLA baseline;
    a Pallas call also fails when the TPU interpreter saw a data race."""
    import jax
    import numpy as np
    import kforge_pallas
    jitted = jax.jit(fn)

    def call(set_index, out_index, checked=False):
        result = as_tuple(jitted(*kforge_pallas.cast_inputs(inputs[set_index], dtype)))
        if checked:
            check_result(call.task, result, dtype)
        for dest, r in zip(outputs[out_index], result):
            np.copyto(dest, np.asarray(r, dtype=dest.dtype))
        if pallas and kforge_pallas.races_found():
            raise Refusal("TPU interpret mode found a data race between grid steps or DMAs "
                          "(a buffer written by one and read or written by another without "
                          "a semaphore or barrier between them)")

    def copy_only(out_index):
        for dest in outputs[out_index]:
            np.copyto(dest, dest.copy())

    return call, copy_only, "jax " + jax.__version__


def warm_up(call, in_sets, out_sets, framework):
    """Runs until two successive calls agree within 10% (at most 30 calls or 60 s): the compile
    and the caches the framework fills on its first calls stay out of every timed call. Under
    torch.compile every input set is called once first: a port whose shapes follow its data (11p's
    group sizes) is compiled anew for each set, which must happen here, untimed and with the
    compiler allowed, not in a check call under its deadline."""
    t0 = time.perf_counter()
    call(0, 0, checked=True)
    if framework in COMPILING:
        for k in range(1, in_sets):
            call(k, 0, checked=True)
    compile_s = time.perf_counter() - t0
    last, start = None, time.perf_counter()
    for i in range(30):
        t = time.perf_counter()
        call(0, i % out_sets)
        took = time.perf_counter() - t
        if last is not None and abs(took - last) <= 0.1 * max(last, 1e-6):
            break
        if time.perf_counter() - start > 60:
            break
        last = took
    return compile_s, time.perf_counter() - start


def median_ms(f, n=7):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    return sorted(times)[n // 2]


def serve(control, call, inputs, outputs):
    """Every command is timed by kforge from `go` to `done` (runner/control_page.h)."""
    seen = 0
    while True:
        go = control.go
        if go == seen:
            control.wait_go(seen)
            continue
        seen = go
        command, set_index, out_index = control.command()
        if command == STOP or set_index >= len(inputs) or out_index >= len(outputs):
            os._exit(0)
        if command == CALL:
            call(set_index, out_index)
        control.done = seen
        control.wake_done()


def is_refusal(e):
    return isinstance(e, Refusal) or type(e).__name__ == "Refused"


def prepare_pallas():
    """Forces the interpret mode (on a CPU backend) and installs the loading-stage filter."""
    import jax
    import jax.experimental.pallas  # noqa: F401  (imported before the kernel's module, by us)
    import kforge_pallas
    mode = kforge_pallas.force_interpret_mode(jax.default_backend())
    return mode, install_filter(exec_memory_denied=False)


def pallas_backend():
    import jax
    return jax.default_backend()


def first_call_in_interpreter(call, mode):
    """The first (checked) call. A kernel the TPU interpreter cannot model (written for the GPU
    lowering) gets one more try in the plain HLO interpreter; any other failure is the kernel's."""
    import kforge_pallas
    try:
        call(0, 0, checked=True)
        return mode
    except (NotImplementedError, KeyError) as first:
        if mode != "tpu-interpret":
            raise
        from jax.experimental.pallas import tpu as pltpu
        pltpu.reset_tpu_interpret_mode_state()
        mode = kforge_pallas.use_plain_interpreter()
        try:
            call(0, 0, checked=True)
        except BaseException as e:
            raise Failure(f"{type(e).__name__}: {e} (and in TPU interpret mode: "
                          f"{type(first).__name__}: {first})") from e
        return mode + " (the TPU interpreter could not model it: " + str(first)[:200] + ")"


def main():
    # kforge_pallas.py beside this script (-I leaves the script's folder off sys.path).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        os.fstat(CHANNEL_FD)
    except OSError:
        sys.stderr.write("kforge_worker.py is started by kforge; it expects its socket on fd 3\n")
        return 2
    sock = channel()
    message, fds, _, _ = socket.recv_fds(sock, 1 << 20, 64)
    setup = json.loads(message)
    python = setup.get("python") or {}
    control = None
    try:
        if setup.get("op") != "kernel" or python.get("framework") not in FRAMEWORKS:
            raise Failure(f"not a Python kernel setup: {message[:200]!r}")
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (setup["cpu_seconds"], setup["cpu_seconds"]))
        threads = setup["threads"]
        pin_threads(threads)  # before JAX starts: XLA sizes its thread pool from these CPUs
        # The backend before anything else: a worker without the device it was asked for is of
        # no use, and says why rather than run a GPU kernel on the CPU.
        asked = asked_backend(python["framework"])
        accelerator = asked not in (None, "cpu")
        if accelerator:
            lift_address_space_limit()
        if asked is not None:
            require_backend(asked)
        expected = setup["input_sets"] + setup["output_sets"] + 1
        if len(fds) != expected:
            raise Failure(f"setup: expected {expected} descriptors, got {len(fds)}")
        control = ControlPage(fds[-1])
        import numpy as np
        framework, dtype = python["framework"], python.get("dtype", "f32")
        pallas = framework == "pallas"
        if pallas:
            # The walls a Pallas kernel meets before its module runs a line (kforge_pallas.py).
            pallas_mode, loading_filter = prepare_pallas()
        fn, task = load_callable(python)
        in_shapes = [shape for _, _, shape in task.INPUTS]
        out_shapes = [shape for _, _, shape in task.OUTPUTS]
        n_in = setup["input_sets"]
        inputs = [map_set(np, fds[k], setup["inputs"], in_shapes, PROT_READ) for k in range(n_in)]
        outputs = [map_set(np, fds[n_in + k], setup["outputs"], out_shapes, PROT_READ | PROT_WRITE)
                   for k in range(setup["output_sets"])]
        for fd in fds:
            os.close(fd)
        if framework in ("jax", "pallas"):
            for s in inputs:
                for a in s:
                    a.flags.writeable = False
            call, copy_only, version = jax_caller(fn, inputs, outputs, dtype, pallas)
        else:
            call, copy_only, version = torch_caller(framework, fn, inputs, outputs, threads)
        call.task = task
        extra = {}
        if pallas:
            import kforge_pallas
            check_set = inputs[1] if len(inputs) > 1 else inputs[0]
            primitives, gpu_lowerings = kforge_pallas.check_program(
                fn, kforge_pallas.cast_inputs(check_set, dtype))
            if gpu_lowerings and pallas_mode == "tpu-interpret":
                # A GPU kernel: the TPU interpreter would refuse its compiler parameters.
                pallas_mode = (kforge_pallas.use_plain_interpreter() + " (written for the GPU's "
                               + " and ".join(gpu_lowerings) + " lowering)")
            pallas_mode = first_call_in_interpreter(call, pallas_mode)
            extra = {"pallas_mode": pallas_mode, "backend": pallas_backend(),
                     "primitives": primitives, "loading_seccomp": loading_filter or "on"}
        compile_s, warmup_s = warm_up(call, len(inputs), len(outputs), framework)
        copy_ms = median_ms(lambda: copy_only(0))
        close_walls(setup, framework, accelerator)
        filter_problem = install_filter()
    except BaseException as e:  # a module that fails to import or run is the kernel's error
        if is_refusal(e):
            fail(sock, control, str(e), 4, refused=True)
        tb = traceback.extract_tb(e.__traceback__)
        where = next((f"{f.filename}:{f.lineno}: " for f in reversed(tb)
                      if f.filename == python.get("module")), "")
        fail(sock, control, f"{where}{type(e).__name__}: {e}", 4)
    send(sock, {"op": "ready", "framework": python["framework"], "version": version,
                "compile_s": compile_s, "warmup_s": warmup_s, "copy_ms": copy_ms,
                "seccomp": filter_problem or "on", **extra})
    try:
        serve(control, call, inputs, outputs)
    except BaseException as e:
        fail(sock, control, str(e) if is_refusal(e) else f"{type(e).__name__}: {e}", 5,
             refused=is_refusal(e))


if __name__ == "__main__":
    sys.exit(main())
