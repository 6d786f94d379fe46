#!/bin/sh
# A real Slurm job array on a private single-node cluster (slurmctld, slurmd and munged
# started here, in a temporary folder, on ports of their own): four array tasks each run
# `bench run` on one shard of a CPU-only config (the shard comes from the
# SLURM_ARRAY_TASK_* variables alone), then `bench merge` joins them, and the merged rows
# must be the unsharded run's. Exits 77 (skipped) where Slurm or munge is not installed or
# cannot start (no root, a container that forbids it).
# usage: slurm_array.sh BENCH CONFIG
set -u
bench=$(realpath "$1")
config=$(realpath "$2")
for tool in slurmctld slurmd munged sbatch squeue; do
    command -v "$tool" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
    command -v "$tool" >/dev/null 2>&1 || { echo "skip: $tool is not installed"; exit 77; }
done
dir=$(mktemp -d /tmp/pb-slurm.XXXXXX)
chmod 755 "$dir"
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    sleep 1
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    if [ "${PB_KEEP_SLURM:-}" = "" ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
skip() { echo "skip: $*"; for f in "$dir"/*.log; do [ -f "$f" ] && tail -n 5 "$f"; done; exit 77; }
fail() { echo "FAIL: $*"; for f in "$dir"/*.log; do [ -f "$f" ] && tail -n 20 "$f"; done; exit 1; }

user=$(id -un)
host=$(hostname -s)
base=$((20000 + $$ % 20000)) # ports of our own, so a running cluster is left alone

# munge: a private key, socket and state under $dir.
mkdir -p "$dir/munge"
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munged.log" \
    --seed-file="$dir/munge/munged.seed" >"$dir/munged.out.log" 2>&1 ||
    skip "munged does not start"
pids="$pids $(cat "$dir/munge/munged.pid" 2>/dev/null)"

mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=pbtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SchedulerType=sched/builtin
NodeName=$host NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -c -f "$SLURM_CONF" >"$dir/slurmctld.out.log" 2>&1 || skip "slurmctld does not start"
slurmd -f "$SLURM_CONF" >"$dir/slurmd.out.log" 2>&1 || skip "slurmd does not start"
sleep 1
pids="$pids $(cat "$dir/slurmctld.pid" 2>/dev/null) $(cat "$dir/slurmd.pid" 2>/dev/null)"
up=""
for i in $(seq 1 30); do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
    case "$state" in idle*|mixed*|allocated*) up=1; break ;; esac
    sleep 1
done
[ -n "$up" ] || skip "the node did not come up (state '${state:-none}')"

cd "$dir" || exit 1
cat >array.sh <<JOB
#!/bin/sh
# One shard per array task: bench reads SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.
exec "$bench" run --no-progress --force --output "$dir/shard-\$SLURM_ARRAY_TASK_ID.csv" "$config"
JOB
chmod +x array.sh
job=$(sbatch --parsable --array=0-3 --output="$dir/task-%a.log" array.sh) ||
    fail "sbatch refused the array"
for i in $(seq 1 240); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
    sleep 1
done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || fail "the array did not finish in 240 s"
for t in 0 1 2 3; do
    [ -f "shard-$t.csv" ] || fail "task $t wrote no shard-$t.csv"
    grep -q '"source":[[:space:]]*"slurm"' "shard-$t.csv.meta.json" ||
        fail "task $t did not take its shard from Slurm"
done
"$bench" merge merged.csv shard-0.csv shard-1.csv shard-2.csv shard-3.csv || fail "merge failed"
"$bench" run --no-progress --force --output whole.csv "$config" >/dev/null 2>&1 ||
    fail "the unsharded run failed"
# Case, backend and status columns (times differ): the first 9 columns of a reduce row.
cut -d, -f1-6,9 merged.csv >merged.keys
cut -d, -f1-6,9 whole.csv >whole.keys
cmp -s merged.keys whole.keys || fail "the merged rows differ from the unsharded run's"
echo "ok: a 4-task Slurm array ($job) merged to the unsharded run's $(($(wc -l <whole.keys) - 1)) rows"
