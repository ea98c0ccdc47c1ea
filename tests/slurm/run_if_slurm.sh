#!/bin/bash
# Runs the given test when Slurm and munge are installed, else says why and exits 77 (skipped).
for tool in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged /usr/bin/sbatch; do
  if [ ! -x "$tool" ]; then
    echo "skipped: $tool not installed (slurm-wlm and munge, deps/apt.txt)"
    exit 77
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: the test cluster's daemons run as root"
  exit 77
fi
exec "$@"
