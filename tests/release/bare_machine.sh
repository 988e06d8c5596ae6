#!/usr/bin/env bash
# A release as a bare machine sees it (issue 33): scripts/release packs the build tree, the
# tarball is unpacked elsewhere, and from a folder outside the source tree, in an environment
# holding only PATH and HOME, kforge lists the suite, shows a task, judges a C++ kernel at the ci
# size and reports the machine; `ldd` of every binary and library in the tarball resolves nothing
# outside it but glibc, libstdc++, libgcc_s and libgomp (and the NVIDIA driver's where present).
# As root, the runs happen again in a mount namespace where the build's dev packages (the headers
# and the shared libraries kforge was linked with: toml++, fmt, SQLite, curl, seccomp, libedit,
# libtorch...) are hidden, so the tarball provably brings its own. With the build's Python
# environment named by KFORGE_PYENV, `kforge hw` reports its versions and no shortfall, and a
# timed `kforge eval` builds the libtorch baseline against that environment's torch wheel (in the
# namespace, where the system's libtorch and its headers are hidden) and times the kernel against
# it.
#
#   tests/release/bare_machine.sh BUILD_DIR
#
# Fails (exit 1) at the first broken assertion, saying which; leaves nothing behind.
set -euo pipefail
self=$(readlink -f "$0")
fail() { echo "FAILED: $*" >&2; exit 1; }
step() { echo "--- $*"; }

# The user's commands, from $tmp/work, with nothing but PATH and HOME (and the Python environment
# where the check asks for it). $1: a label for the messages; the rest: the command's prefix.
commands() {
  local label=$1 k=("${@:2}")
  step "$label: kforge list"
  out=$("${k[@]}" list) || fail "$label: kforge list: $out"
  grep -q 12p_rmsnorm <<<"$out" || fail "$label: kforge list does not list 12p_rmsnorm: $out"
  step "$label: kforge show 12p_rmsnorm"
  out=$("${k[@]}" show 12p_rmsnorm) || fail "$label: kforge show: $out"
  grep -q rmsnorm <<<"$out" || fail "$label: kforge show says nothing of the task: $out"
  step "$label: kforge eval (cpp, ci size)"
  out=$("${k[@]}" eval 12p_rmsnorm rmsnorm.cpp --size ci --no-time --json 2>"$tmp/eval.err") ||
    fail "$label: kforge eval: $(tail -5 "$tmp/eval.err") $out"
  grep -q '"verdict": "correct"' <<<"$out" || fail "$label: kforge eval: not correct: $out"
  step "$label: kforge hw"
  out=$("${k[@]}" hw --budget 2 2>"$tmp/hw.err") || fail "$label: kforge hw: $(tail -5 "$tmp/hw.err")"
  grep -q 'fma f32' <<<"$out" || fail "$label: kforge hw measured no peak: $out"
}
# A timed eval at the ci size against the default partner, the libtorch baseline, which kforge
# compiles against the torch wheel of the Python environment KFORGE_PYENV names (no other hint):
# the baseline's run path is the wheel's. $1: a label; $2: the environment; $3: a fresh HOME.
baseline_eval() {
  local label=$1 pyenv=$2 home=$3
  step "$label: kforge eval against the baseline, built against $pyenv's torch"
  mkdir -p "$home"
  local started=$SECONDS
  out=$(env -i PATH=/usr/bin:/bin HOME="$home" KFORGE_PYENV="$pyenv" KFORGE_QUIET_WAIT_S=0 \
    "$rel/bin/kforge" eval 12p_rmsnorm rmsnorm.cpp --size ci --budget 0.5 --json 2>"$tmp/baseline.err") ||
    fail "$label: kforge eval against the baseline: $(tail -5 "$tmp/baseline.err") $out"
  local facts
  facts=$("$pyenv/bin/python" -c 'import json, sys; e = json.load(sys.stdin)
print(e["verdict"], e["partner"], e["partner_failed"], (e.get("baseline") or {}).get("samples", 0))' <<<"$out")
  read -r verdict partner partner_failed samples <<<"$facts"
  [[ $verdict == correct && $partner == baseline && $partner_failed == False && $samples -gt 0 ]] ||
    fail "$label: not timed against the baseline ($facts): $(tail -5 "$tmp/baseline.err")"
  local runpaths
  runpaths=$(find "$home" -name kernel.so -exec readelf -d {} \; | grep RUNPATH || true)
  grep -q "$(readlink -f "$pyenv")/lib/python3[^/]*/site-packages/torch/lib" <<<"$runpaths" ||
    fail "$label: no baseline linked against $pyenv's torch: $runpaths"
  echo "timed against the baseline ($samples calls; $((SECONDS - started)) s with its first build)"
}

# Inside the mount namespace (below): the commands again, on the unpacked release.
if [[ ${1:-} == --commands-only ]]; then
  rel=$2 tmp=$3 pyenv=${4:-}
  cd "$tmp/work"
  # A home of its own: nothing compiled or measured outside the namespace is reused.
  mkdir -p "$tmp/home-namespace"
  commands "namespace" env -i PATH=/usr/bin:/bin HOME="$tmp/home-namespace" "$rel/bin/kforge"
  [[ -n $pyenv ]] && baseline_eval "namespace" "$pyenv" "$tmp/home-namespace-baseline"
  exit 0
fi

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: bare_machine.sh BUILD_DIR}" && pwd)
tmp=$(mktemp -d /tmp/kforge-release-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

step "scripts/release"
"$ROOT/scripts/release" --no-build --build "$BUILD" --out "$tmp/out"
tarball=$(ls "$tmp"/out/kforge-*-linux-x86_64.tar.gz)
ls "$tmp"/out/kforge-*-debug.tar.gz >/dev/null || fail "no debug-symbols tarball"
mkdir -p "$tmp/unpacked" "$tmp/home" "$tmp/work"
tar -C "$tmp/unpacked" -xzf "$tarball"
rel=$(ls -d "$tmp"/unpacked/kforge-*)
for p in kforge kforge-run kforge-run-cuda kforge-peak kforge_worker.py; do
  [[ -f $rel/bin/$p ]] || fail "bin/$p is not in the tarball"
done
[[ -d $rel/share/kforge/bench/jaxbench/12p_rmsnorm ]] || fail "share/kforge/bench is not in the tarball"
# Stripped, with a debuglink to the symbols of the other tarball.
sections=$(readelf -S "$rel/bin/kforge")
grep -q '\.debug_info' <<<"$sections" && fail "bin/kforge is not stripped"
grep -q '\.gnu_debuglink' <<<"$sections" || fail "bin/kforge has no debuglink"

step "ldd: nothing outside the tarball but the system's own"
allowed='^(linux-vdso|ld-linux|(libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libgomp|libcuda)\.so|libnvidia-)'
for f in "$rel"/bin/kforge "$rel"/bin/kforge-* "$rel"/lib/*; do
  out=$(env -i PATH=/usr/bin:/bin ldd "$f")
  grep -q 'not found' <<<"$out" && fail "$f: $(grep 'not found' <<<"$out" | head -1)"
  while read -r soname arrow path _; do
    [[ $arrow == "=>" ]] || continue
    [[ $(readlink -f "$path") == "$rel/lib/"* ]] && continue
    [[ $soname =~ $allowed ]] || fail "$(basename "$f"): $soname resolves to $path, outside the tarball"
  done <<<"$out"
done
grep -q 'RUNPATH.*\$ORIGIN/../lib' <<<"$(readelf -d "$rel/bin/kforge")" || fail "bin/kforge has no RUNPATH \$ORIGIN/../lib"

# A small correct kernel for 12p_rmsnorm, a user's file outside the tarball.
cat >"$tmp/work/rmsnorm.cpp" <<'CPP'
#include "kforge_task.h"
#include <cmath>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
  for (std::int64_t r = 0; r < B * S; ++r) {
    float ss = 0;
    for (std::int64_t d = 0; d < D; ++d) ss += x[r * D + d] * x[r * D + d];
    float inv = 1.0f / std::sqrt(ss / D + eps);
    for (std::int64_t d = 0; d < D; ++d) y[r * D + d] = x[r * D + d] * inv * scale[d];
  }
}
CPP

bare=(env -i PATH=/usr/bin:/bin HOME="$tmp/home")
cd "$tmp/work"
commands "env -i" "${bare[@]}" "$rel/bin/kforge"

# Python where the user has it: the build's environment, named by KFORGE_PYENV.
if [[ -x $BUILD/pyenv/bin/python ]]; then
  step "KFORGE_PYENV: kforge hw reports the environment's versions"
  out=$("${bare[@]}" KFORGE_PYENV="$BUILD/pyenv" "$rel/bin/kforge" hw --budget 2 2>&1) ||
    fail "kforge hw with KFORGE_PYENV: $out"
  grep -q "python env.*$BUILD/pyenv" <<<"$out" || fail "kforge hw names no Python environment: $out"
  grep -q "python needs.*met" <<<"$out" || fail "the build's Python environment falls short: $out"
  grep -q "libtorch.*of the Python environment $(readlink -f "$BUILD/pyenv")" <<<"$out" ||
    fail "kforge hw names no libtorch of the Python environment for the baselines: $out"
fi

# The GPU check from inside the release, on a machine without a GPU: its host steps run and pass,
# the device steps are listed as skipped, and it says so by its exit status (77).
if [[ -x $BUILD/pyenv/bin/python ]]; then
  step "share/kforge/scripts/gpu-check without a GPU"
  set +e
  "${bare[@]}" "$rel/share/kforge/scripts/gpu-check" --pyenv "$BUILD/pyenv" --out "$tmp/gpu-check" \
    --deadline 120 >"$tmp/gpu-check.log" 2>&1
  rc=$?
  set -e
  [[ $rc == 77 ]] || fail "gpu-check without a GPU: exit $rc, not 77: $(tail -20 "$tmp/gpu-check.log")"
  summary=$tmp/gpu-check/summary.md
  for row in "| release | kforge runs | kforge" "| ldd | every library found | all found | pass" \
             "| python | no shortfall | Python" "| hw | device and peaks | no GPU here | skipped" \
             "| corpus/spins_forever | timeout | no GPU here | skipped"; do
    grep -qF "$row" "$summary" || fail "gpu-check's summary has no row '$row': $(cat "$summary")"
  done
  grep -q '| python | no shortfall | .* | pass |' "$summary" || fail "gpu-check's python step: $(grep python "$summary")"
  listing=$(tar -tzf "$tmp/gpu-check.tar.gz")
  grep -q 'gpu-check/python.out' <<<"$listing" || fail "gpu-check's archive lacks python.out: $listing"
fi

# The same in a mount namespace without the build's dev packages, where root may make one; else
# the baseline from the Python environment's torch here.
namespace=0
[[ $(id -u) == 0 ]] && unshare -m true 2>/dev/null && namespace=1
if ((!namespace)) && [[ -x $BUILD/pyenv/bin/python ]]; then
  baseline_eval "env -i" "$BUILD/pyenv" "$tmp/home-baseline"
fi
if ((namespace)); then
  step "a mount namespace without the build's headers and libraries"
  mkdir -p "$tmp/empty"
  hide=()
  for d in toml++ fmt nlohmann CLI curl ATen c10 torch caffe2 sqlite3.h seccomp.h httplib.h \
           histedit.h editline openssl; do
    [[ -e /usr/include/$d ]] && hide+=("/usr/include/$d")
  done
  # The system's copies of the libraries the tarball ships, but those the base system's own tools
  # load (bash, the compiler kforge runs: a bare machine has them too), and libtorch's.
  tools=(/bin/bash /usr/bin/env "$(command -v g++)")
  for prog in cc1plus as ld collect2 lto-wrapper; do tools+=("$(g++ -print-prog-name=$prog)"); done
  base=$(for t in "${tools[@]}"; do [[ -x $t ]] && ldd "$t" 2>/dev/null; done | awk '$2 == "=>" { print $1 }' | sort -u)
  for so in "$rel"/lib/*.so*; do
    grep -qxF "$(basename "$so")" <<<"$base" && continue
    for f in /usr/lib/x86_64-linux-gnu/"$(basename "$so")"*; do [[ -e $f ]] && hide+=("$f"); done
  done
  for f in /usr/lib/x86_64-linux-gnu/libtorch* /usr/lib/x86_64-linux-gnu/libc10*; do
    [[ -e $f ]] && hide+=("$f")
  done
  # And the source tree (with the build tree in it): the compiled-in source folder is no fallback.
  # The build's Python environment stays visible elsewhere, as a user's would be (/opt/...).
  hide+=("$ROOT")
  pyenv=
  if [[ -x $BUILD/pyenv/bin/python ]]; then pyenv=$tmp/pyenv; mkdir -p "$pyenv"; fi
  cp "$self" "$tmp/bare_machine.sh"
  printf '%s\n' "${hide[@]}" >"$tmp/hidden.txt"
  echo "hiding ${#hide[@]} paths; left visible, as the base system's tools load them:" \
    $(for so in "$rel"/lib/*.so*; do grep -qxF "$(basename "$so")" <<<"$base" && basename "$so"; done)
  # An empty folder over each folder, /dev/null over each file: a library that the loader finds
  # there is "too short", so any use of the system's copy fails loudly.
  unshare -m bash -c '
    set -e
    [[ -z $8 ]] || mount --bind "$7" "$8"
    while read -r p; do
      if [[ -d $p && ! -L $p ]]; then mount --bind "$0" "$p"; else mount --bind /dev/null "$(readlink -f "$p")"; fi
    done <"$1"
    [[ -z $(ls /usr/include/fmt 2>/dev/null) ]] || { echo "the headers are still visible" >&2; exit 1; }
    [[ -z $(ls "$6" 2>/dev/null) ]] || { echo "the source tree is still visible" >&2; exit 1; }
    exec "$2" "${@:3:3}" "$8"' "$tmp/empty" "$tmp/hidden.txt" "$tmp/bare_machine.sh" --commands-only "$rel" "$tmp" "$ROOT" \
    "$BUILD/pyenv" "$pyenv"
fi
echo "ok: the release runs on a bare machine"
