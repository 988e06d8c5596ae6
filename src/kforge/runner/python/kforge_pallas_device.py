"""kforge_pallas_device.py: a JAX function (a Pallas kernel, or XLA's jax.jit of a task's port) as
a device process of the pallas target on a GPU.

On a GPU backend the pallas target is judged by the GPU judge (targets/pallas_gpu.h), which speaks
the device runner's wire (runner/cuda_wire.h) to this process, as the cuda target does to
kforge-run-cuda and to its peers (kforge_cuda_worker.py). This file reuses kforge_cuda_worker.py
by import: its wire, its device buffers (torch tensors of bytes) and its timed batches, where each
call's inputs are made fresh ON the device from pristine copies uploaded once (the same multiply by
kforge's table of factors as kforge-run-cuda's PTX: the judge compares the last call's inputs with
its own perturbation of them), outputs poisoned, L2 flushed with a write over twice its size, and
the call timed by this process's clock (and CUDA events) to the device's synchronization: no
host-to-device copy of the inputs and no copy of the outputs back is in a timed call. The
outputs are read back only by the judge's checks and snapshots, between calls.

What it adds: the call is the function under jax.jit on the device buffers (DLPack views, no
copy), its inputs cast to bfloat16 for --dtype bf16 and its outputs back to f32 (the same prelude
as kforge_worker.py's, for the kernel and its XLA partner alike); and for framework "pallas" (an
untrusted kernel) the walls of kforge_worker.py: the loading-stage seccomp filter before its module
is imported, interpret mode forced on a CPU backend (the tests' host-memory mode), the traced
program's check (kforge_pallas.check_program), and after the warm-up the memory and file caps and
the running-stage filter. kforge starts an untrusted one inside a Landlock view (its scratch
folder, the venv, the system, the backend's device nodes).

argv: --module PATH --callable NAME --framework pallas|jax --task-dir DIR [--dtype f32|bf16]
      [--memory-bytes N] [--host-memory]
"""
import argparse
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves this folder off

import kforge_cuda_worker as cw  # noqa: E402
import kforge_worker as kw  # noqa: E402


def jax_call(fn, dtype):
    """The function under jax.jit on device tensors: DLPack views in, the dtype's cast, one call,
    block_until_ready, the f32 cast back, DLPack views out (the worker copies them into the output
    buffers on the device)."""
    import jax
    import jax.numpy as jnp
    import kforge_pallas
    jitted = jax.jit(fn)

    def as_f32(r):
        return r.astype(jnp.float32) if dtype == "bf16" and r.dtype == jnp.bfloat16 else r

    def run(*xs):
        ins = kforge_pallas.cast_inputs([jax.dlpack.from_dlpack(x) for x in xs], dtype)
        result = cw.Worker.as_tuple(jitted(*ins))
        jax.block_until_ready(result)
        run.last = result
        out = tuple(as_f32(r) for r in result)
        jax.block_until_ready(out)
        import torch
        return tuple(torch.from_dlpack(r) for r in out)
    run.jitted = jitted
    run.last = ()
    return run


class JaxDeviceWorker(cw.Worker):
    """kforge_cuda_worker's Worker with a JAX function and, for a Pallas kernel, its walls."""

    def __init__(self, args):
        self.args = args
        self.pallas = args.framework == "pallas"
        asked = kw.asked_backend(args.framework)
        self.accelerator = asked not in (None, "cpu")
        if self.accelerator:
            kw.lift_address_space_limit()
        self.backend = kw.require_backend(asked)
        self.device = cw.Device(args.host_memory)
        self.torch = self.device.torch
        self.buffers = []
        self.mode = None
        if self.pallas:
            # The walls a Pallas kernel meets before its module runs a line.
            self.mode, problem = kw.prepare_pallas()
            self.loading_filter = problem or "on"
        fn, self.task = cw.load_function(args.module, args.callable, args.task_dir)
        self.run = self.checked(fn)
        self.warm_up()
        if self.pallas:
            self.close_walls()

    def sample_inputs(self):
        torch = self.torch
        ins = []
        for _, kind, shape in self.task.INPUTS:
            t = self.dtype(kind)
            ins.append(torch.randn(*shape, device=self.device.dev).to(t) if kind.startswith("f")
                       else torch.zeros(*shape, dtype=t, device=self.device.dev))
        return ins

    def checked(self, fn):
        """The call, after the traced program's check (a Pallas kernel) and one checked call."""
        import jax
        import kforge_pallas
        dtype = self.args.dtype
        run = jax_call(fn, dtype)
        sample = self.sample_inputs()
        if self.pallas:
            views = kforge_pallas.cast_inputs([jax.dlpack.from_dlpack(x) for x in sample], dtype)
            _, lowerings = kforge_pallas.check_program(fn, views)
            if lowerings and self.mode == "tpu-interpret":
                # A GPU kernel in the tests' CPU mode: the TPU interpreter would refuse it.
                self.mode = kforge_pallas.use_plain_interpreter()
        with self.torch.inference_mode():
            run(*sample)
        kw.check_result(self.task, run.last, dtype)
        if self.pallas and kforge_pallas.races_found():
            raise kw.Refusal("TPU interpret mode found a data race between grid steps or DMAs")
        return run

    def warm_up(self):
        """The framework's caches filled and the wire's own device work (the perturbation's
        multiply, the L2 flush) run once before the walls close: none of it is timed later."""
        cw.Worker.warm_up(self)
        x = self.torch.ones(cw.TABLE_ELEMENTS, device=self.device.dev)
        self.torch.mul(x, x.repeat(2)[:x.numel()], out=x)
        self.device.flush()
        self.device.synchronize()

    def close_walls(self):
        kw.close_walls({"memory_bytes": self.args.memory_bytes, "threads": 1}, "pallas",
                       self.accelerator)
        problem = kw.install_filter()
        if problem:
            sys.stderr.write(f"kforge_pallas_device.py: {problem}\n")


def main():
    p = argparse.ArgumentParser(prog="kforge_pallas_device.py")
    for flag in ("--module", "--callable", "--framework", "--task-dir"):
        p.add_argument(flag, required=True)
    p.add_argument("--dtype", default="f32", choices=("f32", "bf16"))
    p.add_argument("--memory-bytes", type=int, default=4 << 30)
    p.add_argument("--host-memory", action="store_true")
    args = p.parse_args()
    if args.framework not in ("pallas", "jax"):
        sys.stderr.write(f"kforge_pallas_device.py: framework {args.framework!r} is not JAX's\n")
        return 2
    try:
        os.fstat(cw.CHANNEL_FD)
    except OSError:
        sys.stderr.write("kforge_pallas_device.py is started by kforge; it expects its socket on "
                         "fd 3\n")
        return 2
    ch = cw.Channel(cw.CHANNEL_FD)
    try:
        worker = JaxDeviceWorker(args)
    except BaseException as e:  # a module that fails to import, trace or run is the kernel's
        tb = traceback.extract_tb(e.__traceback__)
        where = next((f"{f.filename}:{f.lineno}: " for f in reversed(tb)
                      if f.filename == args.module), "")
        what = "refused" if kw.is_refusal(e) else "did not start"
        ch.error(f"the {args.framework} kernel {what}: {where}{type(e).__name__}: {e}")
        return 1
    return worker.serve(ch)


if __name__ == "__main__":
    sys.exit(main())
