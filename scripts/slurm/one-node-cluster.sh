#!/bin/bash
# A one-node Slurm cluster on this Debian machine, to run
# scripts/slurm/generate.sbatch for real (docs/cluster.md). As root:
#
#   bash scripts/slurm/one-node-cluster.sh start   # install, configure, start
#   bash scripts/slurm/one-node-cluster.sh test    # K=3 arrays up to 6 stones, compared with one process
#   bash scripts/slurm/one-node-cluster.sh stop    # stop the daemons it started
#
# No systemd needed: munged, slurmctld and slurmd are started by hand, with
# pid files under /run/togyz-slurm so that `stop` ends exactly those.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=/run/togyz-slurm
CONF=/etc/slurm/slurm.conf

start() {
  if ! command -v slurmctld >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm
  fi
  mkdir -p "$RUN" /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /etc/slurm /run/munge
  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown -R munge:munge /etc/munge /run/munge
  chmod 400 /etc/munge/munge.key
  if ! munge -n >/dev/null 2>&1; then
    # munged writes /run/munge/munged.pid; remember that we started it.
    runuser -u munge -- /usr/sbin/munged
    cp /run/munge/munged.pid "$RUN/munged.pid"
  fi
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
  cat > "$CONF" <<CONF
ClusterName=togyz
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ReturnToService=2
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  : > /etc/slurm/cgroup.conf
  /usr/sbin/slurmctld -i
  /usr/sbin/slurmd
  for _ in $(seq 30); do
    sinfo -h -o %T 2>/dev/null | grep -qE 'idle|mix|alloc' && break
    sleep 1
  done
  sinfo
}

test_array() {
  cargo build --release -p togyz-gen
  local out=/tmp/togyz-slurm-tables single=/tmp/togyz-slurm-single
  rm -rf "$out" "$single"
  # One CPU a task, so the three shards run at once on a 2-CPU node
  # (more shards than slots also finish: a shard solves what nobody does).
  MAX_STONES=6 OUT="$out" sbatch --wait --array=0-2 --cpus-per-task=1 \
    --chdir="$PWD" --output=/tmp/togyz-slurm-%A_%a.out scripts/slurm/generate.sbatch
  cat /tmp/togyz-slurm-*_*.out
  target/release/togyz-gen generate --quiet --max-stones 6 --out "$single" > /dev/null
  for n in 01 02 03 04 05 06; do
    cmp "$out/togyz-$n.tkb" "$single/togyz-$n.tkb"
  done
  echo "the Slurm array's tables are byte-identical to one process's"
  # DTC with every unit cut into kazan parts of one pair, as a run that
  # must fit a node's memory cuts them: the bytes of whole units.
  local cut=/tmp/togyz-slurm-cut single_dtc=/tmp/togyz-slurm-single-dtc
  rm -rf "$cut" "$single_dtc"
  METRIC=dtc KAZAN_PAIRS=1 MAX_STONES=6 OUT="$cut" sbatch --wait --array=0-2 --cpus-per-task=1 \
    --chdir="$PWD" --output=/tmp/togyz-slurm-cut-%A_%a.out scripts/slurm/generate.sbatch
  cat /tmp/togyz-slurm-cut-*_*.out
  target/release/togyz-gen generate --quiet --metric dtc --max-stones 6 --out "$single_dtc" > /dev/null
  for n in 01 02 03 04 05 06; do
    cmp "$cut/togyz-$n.tkb" "$single_dtc/togyz-$n.tkb"
  done
  echo "the Slurm array's DTC tables of cut units are byte-identical to one process's of whole units"
  # DTM with every unit cut into parts of one pair, seeded apart from the
  # table files (nothing held whole) and solved without its quiet-move
  # graph, as the biggest 16-stone units on a 32 GB node are.
  local lean=/tmp/togyz-slurm-lean
  rm -rf "$lean"
  KAZAN_PAIRS=1 NO_GRAPH=1 HOLD_WHOLE=0 MAX_STONES=6 OUT="$lean" sbatch --wait --array=0-2 --cpus-per-task=1 \
    --chdir="$PWD" --output=/tmp/togyz-slurm-lean-%A_%a.out scripts/slurm/generate.sbatch
  cat /tmp/togyz-slurm-lean-*_*.out
  for n in 01 02 03 04 05 06; do
    cmp "$lean/togyz-$n.tkb" "$single/togyz-$n.tkb"
  done
  echo "the Slurm array's DTM tables of cut units without their graphs are byte-identical to one process's of whole units"
}

stop() {
  for d in slurmd slurmctld munged; do
    if [ -s "$RUN/$d.pid" ]; then
      kill "$(cat "$RUN/$d.pid")" 2>/dev/null || true
      rm -f "$RUN/$d.pid"
    fi
  done
}

case "${1:-}" in
  start) start ;;
  test) test_array ;;
  stop) stop ;;
  *) echo "usage: $0 start|test|stop" >&2; exit 2 ;;
esac
