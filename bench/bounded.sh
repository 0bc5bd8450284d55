#!/usr/bin/env bash
# bench/bounded.sh: the bounded-work measurements of BENCHMARKS.md ("Bounded
# work (issue 12)"), for two kb binaries side by side.
#
#   bench/bounded.sh [--work DIR] [--records N] [--skip-big] BEFORE_KB AFTER_KB
#
# BEFORE_KB and AFTER_KB are kb binaries (e.g. built from main before and
# after the change: git worktree add /tmp/old <rev> && go build -o
# /tmp/kb-before ./cmd/kb). Needs /usr/bin/time (GNU time) and hyperfine.
# Every figure is one run (hooks: hyperfine); the machine's load average is
# printed with each block, since other work on the machine moves them.
set -euo pipefail
work=/tmp/kb-bounded
records=1000000
skipbig=0
while [ $# -gt 2 ]; do
	case "$1" in
	--work) work="$2"; shift 2 ;;
	--records) records="$2"; shift 2 ;;
	--skip-big) skipbig=1; shift ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
before=$(realpath "$1")
after=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
cd "$work"
go build -C "$repo" -o "$work/pipelinegen" ./bench/pipelinegen
gen="$work/pipelinegen"

load() { echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"; }

# peak CMD...: wall, CPU, max RSS (GNU time -v) and the peak anonymous RSS
# (sampled from /proc every 0.2 s: max RSS also counts the index's
# memory-mapped segment files).
peak() {
	/usr/bin/time -v "$@" >"$work/peak.out" 2>"$work/peak.err" &
	local tp=$! pid="" ma=0 a
	while kill -0 $tp 2>/dev/null; do
		[ -z "$pid" ] && pid=$(pgrep -P $tp | head -1 || true)
		if [ -n "$pid" ] && a=$(awk '/RssAnon/{print $2}' /proc/$pid/status 2>/dev/null) && [ -n "$a" ] && [ "$a" -gt "$ma" ]; then
			ma=$a
		fi
		sleep 0.2
	done
	wait $tp || true
	local w u s m x
	w=$(awk '/Elapsed/{print $NF}' "$work/peak.err")
	u=$(awk '/User time/{print $NF}' "$work/peak.err")
	s=$(awk '/System time/{print $NF}' "$work/peak.err")
	m=$(awk '/Maximum resident/{print $NF}' "$work/peak.err")
	x=$(awk '/Exit status/{print $NF}' "$work/peak.err")
	echo "wall $w, cpu $(echo "$u + $s" | bc) s, max RSS $((m / 1024)) MiB, peak anon $((ma / 1024)) MiB, exit $x"
}

fresh() { rm -rf "$1"; "$after" init "$1" >/dev/null; }

# --- (a) a 1M-record session ------------------------------------------------
if [ $skipbig = 0 ]; then
	[ -f big.jsonl ] || "$gen" session -n "$records" -out big.jsonl
	fresh big.orig
	"$after" --kb big.orig import --format generic big.jsonl >/dev/null
	for v in before after; do
		exe=$before; [ $v = after ] && exe=$after
		load
		rm -rf big && cp -a big.orig big
		echo "(a) $v: first kb search (notes) after importing $records records: $(peak "$exe" --kb big search migration)"
		rm -rf big && cp -a big.orig big
		echo "(a) $v: first kb search --layer traces: $(peak "$exe" --kb big search migration --layer traces)"
		rm -rf big && cp -a big.orig big
		"$exe" --kb big index >/dev/null 2>&1 &
		p=$!
		sleep 60
		kill -9 $p
		wait $p 2>/dev/null || true
		echo "(a) $v: kb index killed after 60 s, then kb index again: $(peak "$exe" --kb big index --json)"
		echo "    $(jq -c '{docs, rebuilt, reason, resumed}' "$work/peak.out")"
	done
fi

# --- (b) a 100 MB note, (c) one-line notes of 400 KB of openers -------------
"$gen" note -kind huge -kb 100000 -out huge.md
for k in lists olist quotes links wiki; do "$gen" note -kind $k -kb 400 -out $k.md; done
load
for n in huge lists olist quotes links wiki; do
	for v in before after; do
		exe=$before; [ $v = after ] && exe=$after
		fresh note
		cp $n.md note/library/
		echo "(b/c) $v: first kb search with $n.md: $(peak "$exe" --kb note search zzzz)"
	done
done
for v in before after; do
	exe=$before; [ $v = after ] && exe=$after
	fresh note
	cp lists.md links.md note/library/
	"$exe" --kb note index >/dev/null 2>&1
	for c in lint status doctor; do
		echo "(c) $v: kb $c with lists.md and links.md: $(peak "$exe" --kb note $c)"
	done
done

# --- (d) hooks ----------------------------------------------------------------
ev='{"hook_event_name":"UserPromptSubmit","session_id":"x","cwd":"/tmp","prompt":"how do I force push the migration branch"}'
echo "$ev" >event.json
fresh obs
"$gen" obs -n 10000 -kb obs
"$gen" session -n 20000 -id s20k -out s20k.jsonl
for v in before after; do
	exe=$before; [ $v = after ] && exe=$after
	load
	rm -rf h.$v && cp -a obs h.$v && rm -rf h.$v/.index
	cp -a h.$v h.$v.noindex
	"$exe" --kb h.$v index >/dev/null 2>&1
	cp -a h.$v h.$v.fresh
	"$exe" --kb h.$v import --format generic s20k.jsonl >/dev/null
	cp "$(find h.$v/observations -name '*.md' | head -1)" h.$v/observations/extra-copy.md
	cp -a h.$v h.$v.stale
	echo "(d) $v: hook, index up to date:"
	KB_HOOK_NO_INDEX=1 hyperfine --style basic --warmup 3 --runs 30 "$exe --kb h.$v.fresh hook claude-code <event.json" | grep -E 'Time|Range'
	echo "(d) $v: hook after importing 20,000 records and adding an observation (each run on a fresh copy):"
	KB_HOOK_NO_INDEX=1 hyperfine --style basic --runs 5 --prepare "rm -rf h.t && cp -a h.$v.stale h.t" "$exe --kb h.t hook claude-code <event.json" | grep -E 'Time|Range'
	echo "(d) $v: hook with no .index/ (10,000 observations; each run on a fresh copy):"
	KB_HOOK_NO_INDEX=1 hyperfine --style basic --runs 5 --prepare "rm -rf h.t && cp -a h.$v.noindex h.t" "$exe --kb h.t hook claude-code <event.json" | grep -E 'Time|Range'
	(
		cat event.json
		sleep 20
	) | (
		s=$(date +%s%N)
		KB_HOOK_NO_INDEX=1 "$exe" --kb h.$v.fresh hook claude-code >/dev/null
		echo "(d) $v: hook with stdin left open for 20 s returned after $((($(date +%s%N) - s) / 1000000)) ms"
	)
done
# The after binary's real flow: the first hook starts the background indexer.
rm -rf h.flow && cp -a h.after.noindex h.flow
s=$(date +%s%N)
"$after" --kb h.flow hook claude-code <event.json >/dev/null
echo "(d) after, no .index/, background indexer on: hook returned after $((($(date +%s%N) - s) / 1000000)) ms"
until [ -s h.flow/.state/indexer.log ]; do sleep 0.1; done
echo "    background index done after $((($(date +%s%N) - s) / 1000000)) ms: $(cat h.flow/.state/indexer.log)"
echo "    next hook answers $("$after" --kb h.flow hook claude-code <event.json | wc -c) bytes"
