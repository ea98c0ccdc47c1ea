#!/bin/bash
# A real single-node Slurm cluster in a private directory, for tests (no systemd needed):
#   slurm_cluster.sh start DIR   munged + slurmctld + slurmd on free ports; prints the
#                                environment to use it (SLURM_CONF=...) and waits until the node
#                                is idle
#   slurm_cluster.sh stop DIR    stops all three (by their pid files) and removes nothing else
# Runs as root; its munge key, socket, state and logs stay under DIR.
set -euo pipefail
action="$1"
dir="$(realpath -m "$2")"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

stop() {
  for daemon in slurmd slurmctld munged; do
    if [ -f "$dir/$daemon.pid" ]; then
      pid="$(cat "$dir/$daemon.pid")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$dir/$daemon.pid"
    fi
  done
}

start() {
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  chmod 700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  /usr/sbin/munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed"
  cpus="$(nproc)"
  cat > "$dir/slurm.conf" <<CONF
ClusterName=ptxbench-test
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ReturnToService=2
NodeName=ptxnode NodeAddr=127.0.0.1 NodeHostname=$(hostname) CPUs=$cpus RealMemory=1024 State=UNKNOWN
PartitionName=test Nodes=ptxnode Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
  export SLURM_CONF="$dir/slurm.conf"
  /usr/sbin/slurmctld -i
  /usr/sbin/slurmd -N ptxnode
  for _ in $(seq 300); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qx 'idle'; then
      echo "SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 0.2
  done
  echo "slurm_cluster.sh: the node did not become idle; logs in $dir" >&2
  tail -20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
  stop
  return 1
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: slurm_cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
