#!/usr/bin/env bash
# bench/indexab.sh: the full index of bench/run.sh, old and new binaries
# alternated round by round, with the FTS5 load of the same files in each
# round: for an A/B of `kb index` on a shared machine, where the load moves
# between runs of the same binary.
#
#   bench/indexab.sh KB_ROOT ROUNDS KB_BINARY...
#
# KB_ROOT is a generated corpus (bench/gencorpus, as bench/run.sh makes
# them under bench/corpus/SIZE). Each round runs, for each binary,
# `rm -rf KB_ROOT/.index; BIN -q --kb KB_ROOT index` under GNU time, then
# the sqlite3 FTS5 load bench/run.sh times. One line per run: binary, wall
# seconds, user+sys seconds, peak RSS in KB and the 1-minute load average
# at its start. The CPU time is the figure to compare when the load is high.
set -euo pipefail
root=$1 rounds=$2
shift 2
db=$(mktemp -u /tmp/indexab.XXXXXX.db)
sql=$(mktemp /tmp/indexab.XXXXXX.sql)
trap 'rm -f "$db" "$sql"' EXIT
cat >"$sql" <<EOF
CREATE VIRTUAL TABLE notes USING fts5(path UNINDEXED, body, tokenize='porter unicode61');
INSERT INTO notes(path, body) SELECT name, CAST(data AS TEXT) FROM fsdir('library') WHERE name LIKE '%.md' AND mode & 0x8000;
EOF
run() { # label, command...
	local label=$1 load
	shift
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f "$label wall %e cpu %U %S rss %M load $load" "$@" 2>&1 >/dev/null | tail -1 |
		awk '{printf "%s wall %s cpu %.2f rss %s load %s\n", $1, $3, $5 + $6, $8, $10}'
}
for r in $(seq "$rounds"); do
	for bin in "$@"; do
		rm -rf "$root/.index"
		run "$(basename "$bin")" "$bin" -q --kb "$root" index
	done
	rm -f "$db"
	(cd "$root" && run fts5-load sh -c "sqlite3 '$db' < '$sql'")
done
