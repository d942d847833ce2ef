#!/usr/bin/env bash
# A real single-node SLURM cluster on this machine for tests/slurm/ (Debian, run as root, no systemd).
#
#   bash tests/slurm/cluster.sh start    # install (once) and start; a second start while running is a no-op
#   bash tests/slurm/cluster.sh stop     # cancel jobs, stop every daemon this script started, by PID
#   bash tests/slurm/cluster.sh status
#
# Cluster "snakebert": this host as the only node (CPUs and memory from `slurmd -C`, 8 generic resources
# `hpu`, 8 GPUs whose device files are stand-ins (null devices: the gres is counted, nothing computes on it),
# feature `dl1`), partitions `cpu` (default), `spot`, `dl1`, `gpu` and `urgent`, accounting through slurmdbd on a
# private MariaDB (own data directory and port), associations enforced, account `snakebert-ci` for root.
# Daemons: munged (unless one already answers), mariadbd, slurmdbd, slurmctld, slurmd; no cgroups.
# State, logs and PID files live in $SNAKEBERT_SLURM_DIR (default /var/tmp/snakebert-slurm). The config
# goes to /etc/slurm, where the SLURM commands look; a config this script did not write is never touched.
set -euo pipefail

STATE="${SNAKEBERT_SLURM_DIR:-/var/tmp/snakebert-slurm}"
DB_PORT="${SNAKEBERT_SLURM_DB_PORT:-33061}"
CLUSTER=snakebert
ACCOUNT=snakebert-ci
MARK="# written by snakebert tests/slurm/cluster.sh"
CONF=/etc/slurm
NODE="$(hostname -s)"
LOG="$STATE/log"
RUN_DB="$STATE/mysqld" # socket, PID file and log of mariadbd, which runs as user mysql

say() { echo "cluster.sh: $*" >&2; }
die() {
  say "$*"
  exit 1
}

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

wait_for() { # seconds, description, command...
  local seconds=$1 what=$2 tries
  shift 2
  for ((tries = seconds * 5; tries > 0; tries--)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  die "$what did not come up within ${seconds}s (logs in $LOG)"
}

check_ours() {
  local file
  for file in "$CONF/slurm.conf" "$CONF/slurmdbd.conf"; do
    if [ -e "$file" ] && ! grep -qxF "$MARK" "$file"; then
      die "$file exists and was not written by this script: refusing to touch a real SLURM setup"
    fi
  done
}

install_packages() {
  local missing=()
  command -v slurmctld >/dev/null || missing+=(slurmctld)
  command -v slurmd >/dev/null || missing+=(slurmd)
  command -v sbatch >/dev/null || missing+=(slurm-client)
  command -v slurmdbd >/dev/null || missing+=(slurmdbd)
  command -v munged >/dev/null || missing+=(munge)
  command -v mariadbd >/dev/null || missing+=(mariadb-server)
  [ ${#missing[@]} -eq 0 ] && return
  [ "$(id -u)" -eq 0 ] || die "needs root to install ${missing[*]}"
  say "installing ${missing[*]} (apt-get)"
  # Keep package scripts from starting the daemons as services: this script starts its own.
  local policy=/usr/sbin/policy-rc.d ours_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && ours_policy=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >"$STATE/apt.log" 2>&1; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq >>"$STATE/apt.log" 2>&1
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >>"$STATE/apt.log" 2>&1 ||
      { [ "$ours_policy" -eq 0 ] || rm -f "$policy"; die "apt-get install failed, see $STATE/apt.log"; }
  fi
  [ "$ours_policy" -eq 0 ] || rm -f "$policy"
}

write_config() {
  local hardware
  hardware="$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //')" # CPUs, sockets, cores, RealMemory
  mkdir -p "$CONF"
  cat >"$CONF/slurm.conf" <<EOF
$MARK
# A single-node test cluster; rewritten on every start.
ClusterName=$CLUSTER
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/slurmctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# refuse at submission what no node of the partition can ever run, instead of leaving it pending
EnforcePartLimits=ALL
# squeue keeps finished jobs this long; sacct (slurmdbd) keeps them for good
MinJobAge=300
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStorageEnforce=associations
AccountingStoreFlags=job_comment
AccountingStorageTRES=gres/hpu,gres/gpu
JobCompType=jobcomp/none
GresTypes=hpu,gpu
NodeName=$NODE NodeAddr=127.0.0.1 $hardware Gres=hpu:8,gpu:8 Features=dl1 State=UNKNOWN
# a job in the higher tier's partition, urgent, preempts the jobs of cpu and spot by cancelling them: on cpu after
# a grace time, on spot at once (SLURM's default, no grace time); the other partitions' jobs never preempt each
# other: one tier
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
PartitionName=cpu Nodes=$NODE Default=YES MaxTime=INFINITE State=UP GraceTime=120
PartitionName=spot Nodes=$NODE MaxTime=INFINITE State=UP
PartitionName=dl1 Nodes=$NODE MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=$NODE MaxTime=INFINITE State=UP
PartitionName=urgent Nodes=$NODE MaxTime=INFINITE State=UP PriorityTier=2 PreemptMode=OFF
EOF
  local gpu # stand-ins for the device files of 8 GPUs (null devices): SLURM counts a node's GPUs by their files
  for gpu in 0 1 2 3 4 5 6 7; do
    [ -c "$STATE/standin-gpu$gpu" ] || { rm -f "$STATE/standin-gpu$gpu" && mknod "$STATE/standin-gpu$gpu" c 1 3; }
  done
  cat >"$CONF/gres.conf" <<EOF
$MARK
NodeName=$NODE Name=hpu Count=8
NodeName=$NODE Name=gpu File=$STATE/standin-gpu[0-7]
EOF
  (
    umask 077
    cat >"$CONF/slurmdbd.conf" <<EOF
$MARK
AuthType=auth/munge
DbdHost=$NODE
DbdAddr=127.0.0.1
SlurmUser=root
PidFile=$STATE/slurmdbd.pid
LogFile=$LOG/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=snakebert-test-only
StorageLoc=snakebert_slurm_acct_db
EOF
  )
}

start_munge() {
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return; fi # a munged already answers
  [ -s /etc/munge/munge.key ] || { mungekey --create --keyfile /etc/munge/munge.key && chown munge: /etc/munge/munge.key; }
  install -d -o munge -g munge -m 0755 /run/munge
  install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
  runuser -u munge -- munged --pid-file=/run/munge/munged.pid
  wait_for 10 munged sh -c 'munge -n | unmunge'
  cp /run/munge/munged.pid "$STATE/munged.pid" # ours: stopped by `stop`
}

mysql() { mariadb --no-defaults --socket="$RUN_DB/mysqld.sock" -u root "$@"; }

start_mariadb() {
  alive "$RUN_DB/mysqld.pid" && return
  install -d -o mysql -g mysql -m 0755 "$RUN_DB"
  local options=(--datadir="$STATE/mysql" --innodb-log-file-size=8M --innodb-buffer-pool-size=32M --innodb-lock-wait-timeout=900)
  if [ ! -d "$STATE/mysql/mysql" ]; then
    mariadb-install-db --no-defaults --user=mysql "${options[@]}" --auth-root-authentication-method=socket \
      --skip-test-db >"$LOG/mariadb-install.log" 2>&1 || die "mariadb-install-db failed, see $LOG/mariadb-install.log"
  fi
  setsid mariadbd --no-defaults --user=mysql "${options[@]}" --socket="$RUN_DB/mysqld.sock" \
    --pid-file="$RUN_DB/mysqld.pid" --port="$DB_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
    --log-error="$RUN_DB/mariadb.log" </dev/null >/dev/null 2>&1 &
  wait_for 30 mariadbd mariadb-admin --no-defaults --socket="$RUN_DB/mysqld.sock" -u root ping
  mysql -e "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'snakebert-test-only';
            GRANT ALL ON snakebert_slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
}

ensure_association() { # a cluster, the test account, root in it (sacctmgr talks to slurmdbd directly)
  sacctmgr -n -P list cluster format=cluster | grep -qx "$CLUSTER" || sacctmgr -i add cluster "$CLUSTER" >/dev/null
  sacctmgr -n -P list account format=account | grep -qx "$ACCOUNT" ||
    sacctmgr -i add account "$ACCOUNT" Cluster="$CLUSTER" Description="snakebert tests" >/dev/null
  sacctmgr -n -P list association user=root format=account | grep -qx "$ACCOUNT" ||
    sacctmgr -i add user root Account="$ACCOUNT" Cluster="$CLUSTER" >/dev/null
}

node_ready() { sinfo -h -n "$NODE" -o %T | grep -Eq '^(idle|mixed|allocated)'; }

start() {
  if alive "$STATE/slurmctld.pid" && alive "$STATE/slurmd.pid" && alive "$STATE/slurmdbd.pid" && node_ready; then
    say "already running: $(sinfo -h -o '%P %D %T' | tr '\n' ' ')"
    return
  fi
  check_ours
  mkdir -p "$STATE" "$LOG" "$STATE/slurmctld" "$STATE/slurmd"
  install_packages
  write_config
  start_munge
  start_mariadb
  alive "$STATE/slurmdbd.pid" || slurmdbd
  wait_for 30 slurmdbd sacctmgr -n list cluster
  ensure_association
  alive "$STATE/slurmctld.pid" || slurmctld
  wait_for 30 slurmctld scontrol ping
  alive "$STATE/slurmd.pid" || slurmd
  wait_for 30 "node $NODE" node_ready
  say "running: $(sinfo -h -o '%P %D %c %m %G %T' | tr '\n' ' ')"
}

stop_pids() { # pidfile...: SIGTERM to each of these processes together, wait, then SIGKILL a straggler
  local file pid pids=() tries
  for file in "$@"; do
    if alive "$file"; then pids+=("$(cat "$file")"); fi
  done
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  for pid in "${pids[@]}"; do
    for ((tries = 75; tries > 0; tries--)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      say "process $pid ignored SIGTERM for 15s: killing it"
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$@"
}

stop() {
  check_ours
  local leftovers="" tries pid
  if alive "$STATE/slurmctld.pid"; then
    squeue -h -o %i 2>/dev/null | xargs -r scancel --quiet --full 2>/dev/null || true # every job: the cluster is ours
    for ((tries = 50; tries > 0; tries--)); do
      [ -z "$(squeue -h -t running,completing -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  if alive "$STATE/slurmd.pid"; then # processes of job steps that outlived scancel, if any
    leftovers="$(scontrol listpids 2>/dev/null | awk 'NR > 1 && $1 ~ /^[0-9]+$/ {print $1}' || true)"
  fi
  stop_pids "$STATE/slurmd.pid" "$STATE/slurmctld.pid"
  for pid in $leftovers; do kill -9 "$pid" 2>/dev/null || true; done
  stop_pids "$STATE/slurmdbd.pid"
  stop_pids "$RUN_DB/mysqld.pid" "$STATE/munged.pid"
  say "stopped"
}

status() {
  local file
  for file in "$STATE/munged.pid" "$RUN_DB/mysqld.pid" "$STATE"/slurm{dbd,ctld,d}.pid; do
    if alive "$file"; then echo "$(basename "$file" .pid): running ($(cat "$file"))"; else echo "$(basename "$file" .pid): not running (or not ours)"; fi
  done
  sinfo 2>/dev/null || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: $0 start|stop|status" ;;
esac
