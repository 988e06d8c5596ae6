#!/bin/bash
# A throwaway Slurm cluster on this machine, for kforge's tests and measurements: munged, one
# slurmctld and N slurmd (all as root, on localhost, on ports picked free) configured in DIR.
#   cluster.sh start DIR [NODES] [CPUS_PER_NODE]   prints "SLURM_CONF=DIR/slurm.conf" when every node is idle
#   cluster.sh stop DIR                            ends every daemon it started (by their pid files)
#   cluster.sh start-for-tests DIR                 ctest's shared cluster: 2 nodes of 2 CPUs
# Several slurmd on one host need slurmd -N (Debian's build has it); each gets its own port.
set -euo pipefail

die() { echo "cluster.sh: $*" >&2; exit 1; }

free_port() {
  python3 - <<'PY' 2>/dev/null || echo $((20000 + RANDOM % 20000))
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
PY
}

start() {
  local dir=$1 nodes=${2:-1} cpus=${3:-$(nproc)}
  for b in munged slurmctld slurmd sinfo; do
    command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || die "$b is not installed (apt-get install slurm-wlm munge)"
  done
  mkdir -p "$dir"/{state,spool,log,run}
  dir=$(cd "$dir" && pwd)
  local host; host=$(hostname)
  local ctl_port; ctl_port=$(free_port)
  # munge: its own socket and key, so the test never touches a system daemon.
  dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$dir/munge.key"
  /usr/sbin/munged --force --socket="$dir/run/munge.sock" --key-file="$dir/munge.key" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/run/munge.seed"
  {
    echo "ClusterName=kforgetest"
    echo "SlurmctldHost=$host(127.0.0.1)"
    echo "SlurmctldPort=$ctl_port"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$dir/run/munge.sock"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$dir/state"
    echo "SlurmdSpoolDir=$dir/spool/%n"
    echo "SlurmctldPidFile=$dir/run/slurmctld.pid"
    echo "SlurmdPidFile=$dir/run/slurmd-%n.pid"
    echo "SlurmctldLogFile=$dir/log/slurmctld.log"
    echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "SchedulerType=sched/backfill"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "ReturnToService=2"
    echo "MpiDefault=none"
    echo "SlurmctldTimeout=10"
    echo "SlurmdTimeout=10"
    echo "KillWait=2"
    echo "MinJobAge=600"
    echo "SchedulerParameters=sched_interval=1,bf_interval=1"
    echo "MessageTimeout=5"
    local names=()
    for i in $(seq 1 "$nodes"); do
      local name="kn$i" port; port=$(free_port)
      names+=("$name")
      echo "NodeName=$name NodeHostname=$host NodeAddr=127.0.0.1 Port=$port CPUs=$cpus RealMemory=2000 State=UNKNOWN"
    done
    echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } > "$dir/slurm.conf"
  # Slurm reads cgroup.conf even when no cgroup plugin is used; this one asks for nothing.
  echo "CgroupPlugin=autodetect" > "$dir/cgroup.conf"
  export SLURM_CONF="$dir/slurm.conf"
  /usr/sbin/slurmctld -i -f "$dir/slurm.conf"
  for n in "${names[@]}"; do /usr/sbin/slurmd -N "$n" -f "$dir/slurm.conf"; done
  local deadline=$((SECONDS + ${KFORGE_CLUSTER_START_S:-60}))
  while [ $SECONDS -lt $deadline ]; do
    local idle; idle=$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2=="idle"' | wc -l || true)
    [ "$idle" -ge "$nodes" ] && { echo "SLURM_CONF=$dir/slurm.conf"; return 0; }
    sleep 0.5
  done
  sinfo -N 2>&1 >&2 || true
  tail -5 "$dir"/log/*.log >&2 || true
  die "the nodes did not come up idle in time (logs in $dir/log)"
}

stop() {
  local dir=$1 pids=() pid
  for f in "$dir"/run/slurmd-*.pid "$dir/run/slurmctld.pid" "$dir/run/munged.pid"; do
    [ -f "$f" ] && pids+=("$(cat "$f")")
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 1 50); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && return 0
    sleep 0.1
  done
  kill -9 "${pids[@]}" 2>/dev/null || true
}

# For ctest's shared cluster (tests/CMakeLists.txt): a stale one in DIR is ended first; where
# Slurm is not installed it starts nothing and succeeds, and the tests skip themselves.
start_for_tests() {
  local dir=$1 b
  for b in slurmctld slurmd munged; do
    [ -x "/usr/sbin/$b" ] || { echo "cluster.sh: /usr/sbin/$b is missing: no cluster, the Slurm tests skip"; return 0; }
  done
  stop "$dir"
  rm -rf "$dir"
  start "$dir" 2 2
}

case "${1:-}" in
  start) shift; start "$@" ;;
  start-for-tests) shift; start_for_tests "$@" ;;
  stop) shift; stop "$@" ;;
  *) die "usage: cluster.sh start DIR [NODES] [CPUS] | start-for-tests DIR | stop DIR" ;;
esac
