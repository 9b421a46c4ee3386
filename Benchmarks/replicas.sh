#!/usr/bin/env bash
# Replicas on PostgreSQL (issue #42): one throwaway PostgreSQL server, three `tempo-pg-replica bench` processes on
# it at once and, in the same run, one local scheduler (`--local 1`: no coordinator, an InMemoryJobStore) with the
# same jobs. Prints the cluster's dates per second, the dates not run, date-to-body-start p50/p99/max, the claim's
# time and its share, the statements per date from pg_stat_statements, and CPU time per date.
#
#   swift build -c release --traits default,Postgres --product tempo-pg-replica
#   Benchmarks/replicas.sh [JOBS] [DURATION_S] [EVERY_MS]     # defaults: 1000 20 1000
#
# Environment: BIN (default .build/release/tempo-pg-replica), PORT (default 54329), REPLICAS (default 3),
# SPREAD_MS (default 0: every job's dates at the same instant; EVERY_MS spreads them over the period, JobOptions.spread),
# PGSETTINGS (extra server settings, default "-c fsync=off" as the package's tests; "" for fsync on).
# Needs initdb, pg_ctl and psql on the PATH; as root, they run as the user postgres (runuser).
set -euo pipefail

jobs=${1:-1000}
duration=${2:-20}
every=${3:-1000}
bin=${BIN:-.build/release/tempo-pg-replica}
port=${PORT:-54329}
replicas=${REPLICAS:-3}
settings=${PGSETTINGS--c fsync=off}
spread=${SPREAD_MS:-0}
[[ -x $bin ]] || { echo "no $bin: swift build -c release --traits default,Postgres --product tempo-pg-replica" >&2; exit 1; }
bin=$(realpath "$bin")

as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

dir=$(mktemp -d /tmp/tempo-bench-XXXXXX)
chmod 755 "$dir"
[[ $(id -u) == 0 ]] && chown postgres "$dir"
stop() {
    as_postgres pg_ctl -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT
as_postgres initdb -D "$dir/data" -A trust -U tempo --no-sync >/dev/null
as_postgres pg_ctl -D "$dir/data" -l "$dir/log" -w start -o "-k $dir -p $port -c listen_addresses='' \
-c shared_preload_libraries=pg_stat_statements -c max_connections=200 $settings" >/dev/null
sql() { psql -h "$dir" -p "$port" -U tempo -X -q -A -t -F ' ' "$@"; }
sql -d postgres -c 'CREATE DATABASE bench'
sql -d bench -c 'CREATE EXTENSION pg_stat_statements' -c 'SELECT pg_stat_statements_reset()' >/dev/null

# The server's CPU time in clock ticks: the postmaster and its children that ended (backends end with their clients).
ticks() {
    local pid
    pid=$(head -1 "$dir/data/postmaster.pid")
    awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pid/stat"
}
server_before=$(ticks)

mkdir "$dir/samples"
chmod 777 "$dir/samples"
socket="$dir/.s.PGSQL.$port"
pids=()
for n in $(seq 1 "$replicas"); do
    TEMPO_BENCH_SAMPLES="$dir/samples" "$bin" bench "$socket" bench "r$n" --jobs "$jobs" --every-ms "$every" \
        --spread-ms "$spread" --seconds "$duration" >"$dir/r$n.out" 2>"$dir/r$n.err" &
    pids+=($!)
done
TEMPO_BENCH_SAMPLES="$dir/samples" "$bin" bench - - local --jobs "$jobs" --every-ms "$every" --seconds "$duration" \
    --spread-ms "$spread" --local 1 >"$dir/local.out" 2>"$dir/local.err" &
pids+=($!)
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
sleep 1  # the backends of the ended clients exit and are reaped
server_after=$(ticks)
for n in $(seq -f "r%g" 1 "$replicas") local; do
    grep -v '^result ' "$dir/$n.out" || true
    [[ -s $dir/$n.err ]] && { echo "--- $n stderr (last lines)"; tail -5 "$dir/$n.err"; }
done
[[ $status == 0 ]] || { echo "a process failed ($status)" >&2; exit 1; }

field() { sed -n 's/.* '"$2"'=\([^ ]*\).*/\1/p' "$dir/$1.out"; }
sum() { local total=0 n; for n in $(seq 1 "$replicas"); do total=$(echo "$total + $(field "r$n" "$1")" | bc -l); done; echo "$total"; }
median_of() { for n in $(seq 1 "$replicas"); do field "r$n" "$1"; done | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
percentiles() { sort -g "$@" | awk '{ a[NR] = $1 } END { if (NR == 0) { print "- - - 0"; exit }
    i50 = int(NR * 50 / 100) + 1; i99 = int(NR * 99 / 100) + 1; if (i99 > NR) i99 = NR
    printf "%.1f %.1f %.1f %d\n", a[i50], a[i99], a[NR], NR }'; }

expected=$((jobs * duration * 1000 / every))
runs=$(sum runs)
read -r c50 c99 cmax cn < <(percentiles "$dir"/samples/r*.samples)
read -r l50 l99 lmax ln < <(percentiles "$dir"/samples/local.samples)
claim50=$(median_of claim_p50)
claim99=$(median_of claim_p99)
won50=$(median_of won_p50)
won99=$(median_of won_p99)

# Statements of the whole run (warm-up and shutdown included) by kind, against the dates claimed in the whole run.
sql -d bench -c "SELECT CASE
    WHEN query LIKE 'INSERT INTO tempo_claims%' THEN 'claim'
    WHEN query LIKE 'WITH finished AS%' THEN 'finish'
    WHEN query LIKE 'UPDATE tempo_claims SET lease_until%' THEN 'renew'
    WHEN query LIKE 'SELECT job, planned_at FROM tempo_claims%' THEN 'abandoned'
    WHEN query LIKE 'DELETE FROM tempo_claims%' THEN 'retention'
    WHEN query LIKE 'SELECT last_date%' THEN 'cursor'
    ELSE 'other' END, sum(calls), sum(rows), round(sum(total_exec_time)::numeric, 1)
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'bench') GROUP BY 1" \
    >"$dir/statements"
calls() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$dir/statements"; }
rows() { awk -v k="$1" '$1 == k { print $3; f = 1 } END { if (!f) print 0 }' "$dir/statements"; }
read -r dates finished < <(sql -d bench -c 'SELECT count(*), count(finished_at) FROM tempo_claims')
# Per date: the claims, finishing statements, renewals, abandoned-date reads and retention deletes; not the cursor
# reads, one per job and replica at start (listed apart).
per_date=$(( $(calls claim) + $(calls finish) + $(calls renew) + $(calls abandoned) + $(calls retention) ))
since=$(sum runs_since_start)
hz=$(getconf CLK_TCK)
cpu=$(sum cpu_s)

echo
echo "== $replicas replicas + 1 local scheduler, $jobs jobs every $every ms (spread $spread ms), $duration s measured after 2 s warm-up"
echo "   (server: ${settings:-defaults}; load average before the summary: $(cut -d' ' -f1-3 /proc/loadavg))"
printf 'cluster dates per second      %s (runs %s of %s dates planned in the window; not run %s)\n' \
    "$(echo "$runs / $duration" | bc -l | xargs printf '%.0f')" "$runs" "$expected" "$((expected - runs))"
printf 'cluster missed / skipped       %s / %s (added over the replicas: dates a replica did not try)\n' \
    "$(sum missed)" "$(sum skipped)"
printf 'local dates per second         %s (missed %s, skipped %s)\n' \
    "$(echo "$(field local runs) / $duration" | bc -l | xargs printf '%.0f')" "$(field local missed)" "$(field local skipped)"
printf 'date-to-body-start, cluster    p50 %s ms, p99 %s ms, max %s ms (%s runs)\n' "$c50" "$c99" "$cmax" "$cn"
printf 'date-to-body-start, local      p50 %s ms, p99 %s ms, max %s ms (%s runs)\n' "$l50" "$l99" "$lmax" "$ln"
printf 'claim time (median replica)    all p50 %s ms, p99 %s ms; granted p50 %s ms, p99 %s ms\n' \
    "$claim50" "$claim99" "$won50" "$won99"
printf 'granted claim / date-to-start  p50 %s%%, p99 %s%%\n' \
    "$(echo "100 * $won50 / $c50" | bc -l | xargs printf '%.0f')" "$(echo "100 * $won99 / $c99" | bc -l | xargs printf '%.0f')"
printf 'statements (whole run)         claim %s (granted %s), finish+cursor %s, renew %s, abandoned %s, retention %s, cursor read %s, other %s\n' \
    "$(calls claim)" "$(rows claim)" "$(calls finish)" "$(calls renew)" "$(calls abandoned)" "$(calls retention)" \
    "$(calls cursor)" "$(calls other)"
printf 'statements per date            %s overall (cursor reads at start apart), %s for the winner (dates claimed %s, finished %s)\n' \
    "$(echo "$per_date / $dates" | bc -l | xargs printf '%.2f')" \
    "$(echo "($(rows claim) + $(calls finish)) / $dates" | bc -l | xargs printf '%.2f')" "$dates" "$finished"
printf 'check                          runs since start %s = finished claims %s = finish statements %s = claims granted %s\n' \
    "$since" "$finished" "$(calls finish)" "$(rows claim)"
printf 'CPU per date                   replicas %s us (window), local %s us (window), server %s us (whole run)\n' \
    "$(echo "1000000 * $cpu / $runs" | bc -l | xargs printf '%.0f')" \
    "$(echo "1000000 * $(field local cpu_s) / $(field local runs)" | bc -l | xargs printf '%.0f')" \
    "$(echo "1000000 * ($server_after - $server_before) / $hz / $dates" | bc -l | xargs printf '%.0f')"
echo "summary jobs=$jobs spread=$spread runs=$runs rate=$((runs / duration)) c50=$c50 c99=$c99 cmax=$cmax l50=$l50 l99=$l99 lmax=$lmax" \
    "claim50=$claim50 claim99=$claim99 won50=$won50 won99=$won99 per_date=$(echo "$per_date / $dates" | bc -l | xargs printf '%.2f')" \
    "winner=$(echo "($(rows claim) + $(calls finish)) / $dates" | bc -l | xargs printf '%.2f')" \
    "missed=$(sum missed) skipped=$(sum skipped) local_runs=$(field local runs) cpu_us=$(echo "1000000 * $cpu / $runs" | bc -l | xargs printf '%.0f')" \
    "load=$(cut -d' ' -f1 /proc/loadavg)"
