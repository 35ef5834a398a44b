#!/usr/bin/env bash
# Stops the test Slurm started by start-slurm.sh: cancels every job, then SIGTERMs slurmd,
# slurmctld and (if start-slurm.sh started it) munged, by the PIDs it recorded. Idempotent.
set -uo pipefail

STATE=/run/accelopt-slurm
log() { echo "stop-slurm: $*" >&2; }

stop_pid() {  # name: SIGTERM the recorded pid, wait up to 10 s, then SIGKILL
  local f="$STATE/$1.pid" pid i
  [ -s "$f" ] || return 0
  pid="$(cat "$f")"
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null
    for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then log "$1 ($pid) ignored SIGTERM; killing"; kill -9 "$pid"; fi
  fi
  rm -f "$f"
}

[ -d "$STATE" ] || exit 0
if [ -s "$STATE/slurmctld.pid" ] && kill -0 "$(cat "$STATE/slurmctld.pid")" 2>/dev/null; then
  # cancel first so that no slurmstepd or job process outlives slurmd
  timeout 15 scancel --full --partition=debug 2>/dev/null || true
  for i in $(seq 1 100); do
    [ -z "$(timeout 5 squeue -h -t running,completing 2>/dev/null)" ] && break
    sleep 0.1
  done
fi
stop_pid slurmd
stop_pid slurmctld
if [ -e "$STATE/munged.owned" ]; then stop_pid munged; rm -f "$STATE/munged.owned"; fi
rm -f "$STATE/munged.pid"
log "stopped"
