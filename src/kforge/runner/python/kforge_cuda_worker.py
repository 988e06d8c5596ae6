"""kforge_cuda_worker.py: a peer (PyTorch eager, torch.compile, XLA) as a device process of the
cuda target.

kforge starts it where it would start kforge-run-cuda (targets/cuda_process_device.h) and speaks the
same wire (runner/cuda_wire.h): requests on descriptor 3, one reply each. Device buffers are
torch tensors of bytes on the GPU; a call views them as the task's tensors (kforge_task.py in
--task-dir), runs the port's function and copies what it returns into the output buffers, then
synchronizes the device. Timed batches make each call's inputs fresh on the device from pristine
copies (the same multiply by kforge's table of factors as kforge-run-cuda's PTX, so both sides of
a pair see the same bytes), poison the outputs, flush L2, and time the call by CUDA events on the
current stream and by this process's clock to the device-wide synchronization (XLA runs on
streams of its own: the judge then takes the second). The port is kforge's own code (a trusted
partner); nothing it says is a verdict: kforge compares the bytes it reads back.

argv: --module PATH --callable NAME --framework torch|torch-compile|torch-compile-max|xla
      --task-dir DIR [--host-memory]   (host memory: the same on the CPU, for kforge's tests)
Before its first reply ("ready") it compiles and warms the function up on inputs of the task's
shapes, so no compile falls in a check or a timed call.
"""
import argparse
import importlib.util
import os
import struct
import sys
import time
import traceback

CHANNEL_FD = 3
ALLOCATE, UPLOAD, DOWNLOAD, CALL, FLUSH_L2, PEEK, SYNCHRONIZE, TIME_CALLS, GATHER = range(1, 10)
REQUEST = struct.Struct("<IIQ")
REPLY = struct.Struct("<IIQ")
BATCH_HEADER = struct.Struct("<6I")
BATCH_INPUT = struct.Struct("<IIIIQ")
CALL_TIMES = struct.Struct("<dd")
RANGE = struct.Struct("<QQ")
NULL_CALL = 1
TABLE_ELEMENTS = 4096
FRESH_COPY, FRESH_F32, FRESH_F64 = 0, 1, 2
KINDS = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64"}


class Channel:
    def __init__(self, fd):
        self.fd = fd

    def read(self, n):
        chunks, left = [], n
        while left > 0:
            b = os.read(self.fd, min(left, 1 << 24))
            if not b:
                raise EOFError
            chunks.append(b)
            left -= len(b)
        return b"".join(chunks)

    def reply(self, status=0, value=0, payload=b""):
        data = REPLY.pack(status, value, len(payload)) + bytes(payload)
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]

    def error(self, text):
        self.reply(1, 0, text.encode("utf-8", "replace"))


def load_function(module_path, name, task_dir):
    sys.path.insert(0, task_dir)  # `import kforge_task`
    spec = importlib.util.spec_from_file_location("kforge_peer_module", module_path)
    if spec is None:
        raise RuntimeError(f"{module_path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, name, None)
    if not callable(fn):
        raise RuntimeError(f"{module_path} defines no function {name}()")
    import kforge_task
    return fn, kforge_task


class Device:
    """The torch side of the wire: buffers, copies, events, the clock."""

    def __init__(self, host):
        import torch
        self.torch = torch
        self.host = host
        self.dev = torch.device("cpu" if host else "cuda")
        if not host:
            torch.cuda.init()
            l2 = torch.cuda.get_device_properties(0).L2_cache_size
            self.flush_buffer = torch.empty(max(2 * l2, 8 << 20), dtype=torch.uint8, device=self.dev)

    def synchronize(self):
        if not self.host:
            self.torch.cuda.synchronize()

    def flush(self):
        if not self.host:
            self.flush_buffer.fill_(0x5A)

    def event(self):
        if self.host:
            return None
        return self.torch.cuda.Event(enable_timing=True)


class Worker:
    def __init__(self, args):
        self.args = args
        self.device = Device(args.host_memory)
        torch = self.device.torch
        self.torch = torch
        self.buffers = []
        fn, self.task = load_function(args.module, args.callable, args.task_dir)
        self.run = self.framework_caller(fn)
        self.warm_up()

    # --- the port, as its framework runs it
    def framework_caller(self, fn):
        torch = self.torch
        fw = self.args.framework
        if fw in ("torch-compile", "torch-compile-max"):
            mode = "max-autotune" if fw == "torch-compile-max" else "default"
            compiled = torch.compile(fn, mode=mode, dynamic=False)
            return lambda *xs: self.as_tuple(compiled(*xs))
        if fw == "xla":
            import jax
            jitted = jax.jit(fn)

            def run(*xs):
                result = self.as_tuple(jitted(*[jax.dlpack.from_dlpack(x) for x in xs]))
                jax.block_until_ready(result)
                return tuple(torch.from_dlpack(r) for r in result)
            return run
        if fw != "torch":
            raise RuntimeError(f"unknown framework {fw!r}")
        return lambda *xs: self.as_tuple(fn(*xs))

    @staticmethod
    def as_tuple(out):
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    def dtype(self, kind):
        return getattr(self.torch, KINDS[kind])

    def view(self, buffer, kind, shape):
        t = self.dtype(kind)
        n = 1
        for s in shape:
            n *= s
        size = n * self.torch.empty((), dtype=t).element_size()
        return buffer[:size].view(t).view(*shape) if shape else buffer[:size].view(t).view(())

    def call_with(self, ids):
        ins = [self.view(self.buffers[i], kind, shape)
               for i, (_, kind, shape) in zip(ids, self.task.INPUTS)]
        outs = [self.view(self.buffers[i], kind, shape)
                for i, (_, kind, shape) in zip(ids[len(ins):], self.task.OUTPUTS)]
        with self.torch.inference_mode():
            result = self.run(*ins)
            if len(result) != len(outs):
                raise RuntimeError(f"the port returned {len(result)} outputs; the task has {len(outs)}")
            for dest, r in zip(outs, result):
                dest.copy_(r)

    def warm_up(self):
        """Compiles (Inductor, XLA) and fills the framework's caches before "ready"."""
        torch = self.torch
        ins = []
        for _, kind, shape in self.task.INPUTS:
            t = self.dtype(kind)
            ins.append(torch.randn(*shape, device=self.device.dev).to(t) if kind.startswith("f")
                       else torch.zeros(*shape, dtype=t, device=self.device.dev))
        with torch.inference_mode():
            for _ in range(3):
                self.run(*ins)
        self.device.synchronize()

    # --- the wire's requests
    def allocate(self, n):
        self.buffers.append(self.torch.empty(max(n, 1), dtype=self.torch.uint8, device=self.device.dev))
        return len(self.buffers) - 1

    def bytes_of(self, buffer, offset, length):
        return buffer[offset:offset + length].cpu().numpy().tobytes()

    def upload(self, i, data):
        src = self.torch.frombuffer(bytearray(data), dtype=self.torch.uint8)
        self.buffers[i][:len(data)].copy_(src)

    def fresh(self, inp, table):
        buffer, pristine, how, nbytes = inp
        dst, src = self.buffers[buffer][:nbytes], self.buffers[pristine][:nbytes]
        if how == FRESH_COPY:
            dst.copy_(src)
            return
        t = self.torch.float32 if how == FRESH_F32 else self.torch.float64
        x, out = src.view(t), dst.view(t)
        factors = table.view(t)
        reps = (x.numel() + TABLE_ELEMENTS - 1) // TABLE_ELEMENTS
        self.torch.mul(x, factors.repeat(reps)[:x.numel()], out=out)

    def time_calls(self, payload):
        h = BATCH_HEADER.unpack_from(payload, 0)
        calls, n_in, n_out, flags, table_buffer = h[:5]
        at = BATCH_HEADER.size
        inputs = []
        for _ in range(n_in):
            buffer, pristine, how, _, nbytes = BATCH_INPUT.unpack_from(payload, at)
            inputs.append((buffer, pristine, how, nbytes))
            at += BATCH_INPUT.size
        outputs = list(struct.unpack_from(f"<{n_out}I", payload, at))
        at += 4 * n_out
        snaps = list(struct.unpack_from(f"<{calls * n_out}I", payload, at))
        at += 4 * calls * n_out
        sizes = [TABLE_ELEMENTS * (4 if how == FRESH_F32 else 8) if how else 0
                 for _, _, how, _ in inputs]
        tables = self.torch.frombuffer(bytearray(payload[at:]), dtype=self.torch.uint8) \
            .to(self.device.dev) if len(payload) > at else None
        ids = [b for b, _, _, _ in inputs] + outputs
        times, offset = [], 0
        for k in range(calls):
            for inp, size in zip(inputs, sizes):
                self.fresh(inp, tables[offset:offset + size] if size else None)
                offset += size
            for o in outputs:
                self.buffers[o].fill_(0xFF)
            self.device.flush()
            self.device.synchronize()
            start, end = self.device.event(), self.device.event()
            t0 = time.perf_counter()
            if start:
                start.record()
            if not flags & NULL_CALL:
                self.call_with(ids)
            if end:
                end.record()
            self.device.synchronize()
            host_ms = (time.perf_counter() - t0) * 1e3
            device_ms = start.elapsed_time(end) if start else host_ms
            times.append(CALL_TIMES.pack(min(device_ms, host_ms), host_ms))
            for j, o in enumerate(outputs):
                self.buffers[snaps[k * n_out + j]][:self.buffers[o].numel()].copy_(self.buffers[o])
            self.device.synchronize()
        return b"".join(times)

    def serve(self, ch):
        ch.reply()  # ready
        while True:
            try:
                op, ident, length = REQUEST.unpack(ch.read(REQUEST.size))
            except EOFError:
                return 0
            payload = ch.read(length) if op in (UPLOAD, CALL, TIME_CALLS, GATHER) and length else b""
            try:
                if op == ALLOCATE:
                    ch.reply(0, self.allocate(length))
                elif op == UPLOAD:
                    self.upload(ident, payload)
                    ch.reply()
                elif op in (DOWNLOAD, PEEK):
                    self.device.synchronize()
                    ch.reply(0, 0, self.bytes_of(self.buffers[ident], 0, length))
                elif op == CALL:
                    self.call_with(list(struct.unpack(f"<{ident}I", payload)))
                    self.device.synchronize()
                    ch.reply()
                elif op == SYNCHRONIZE:
                    self.device.synchronize()
                    ch.reply()
                elif op == FLUSH_L2:
                    self.device.flush()
                    self.device.synchronize()
                    ch.reply()
                elif op == TIME_CALLS:
                    ch.reply(0, 0, self.time_calls(payload))
                elif op == GATHER:
                    self.device.synchronize()
                    parts = [self.bytes_of(self.buffers[ident], *RANGE.unpack_from(payload, k))
                             for k in range(0, len(payload), RANGE.size)]
                    ch.reply(0, 0, b"".join(parts))
                else:
                    return 2
            except Exception as e:  # a failing port is the partner's error, said in the reply
                ch.error(f"{type(e).__name__}: {e}")


def main():
    p = argparse.ArgumentParser(prog="kforge_cuda_worker.py")
    for flag in ("--module", "--callable", "--framework", "--task-dir"):
        p.add_argument(flag, required=True)
    p.add_argument("--host-memory", action="store_true")
    args = p.parse_args()
    try:
        os.fstat(CHANNEL_FD)
    except OSError:
        sys.stderr.write("kforge_cuda_worker.py is started by kforge; it expects its socket on fd 3\n")
        return 2
    ch = Channel(CHANNEL_FD)
    try:
        worker = Worker(args)
    except BaseException as e:
        tb = traceback.extract_tb(e.__traceback__)
        where = next((f"{f.filename}:{f.lineno}: " for f in reversed(tb) if f.filename == args.module), "")
        ch.error(f"the {args.framework} peer did not start: {where}{type(e).__name__}: {e}")
        return 1
    return worker.serve(ch)


if __name__ == "__main__":
    sys.exit(main())
