#!/usr/bin/env bash
# bench/hooks.sh: hook latency (issue 16), each figure next to a no-op Go
# binary measured in the same run.
#
#   bench/hooks.sh [--sizes 1k,10k,100k] [--work DIR] [--runs 200] [--old KB_BINARY [--old-hook KB_HOOK_BINARY]]
#
# For each size, a KB of that many generated observations (bench/pipelinegen
# obs; every type, action types, 2% recurring), indexed, then:
#   - PreToolUse (`git push --force origin main`; a Write of a 6 KB source
#     file, "write") and SessionStart, p50 and
#     p99 of bench/hooklat runs (the process's wall time, stdin from a
#     file, no shell; the commands interleaved run by run so that they
#     share the load), for kb-hook (the entry point hooks run), `kb hook`
#     (the same answer in the kb binary), the no-op binary, and --old's
#     `kb hook` on its own KB (kb init by it, the same observations,
#     indexed by it) when given, and --old-hook (the kb-hook built with
#     --old) on that KB;
#   - the first call on a fresh clone (no .index/): each run on a fresh
#     copy without it (the hook answers nothing and starts the background
#     indexer; KB_HOOK_NO_INDEX=1 keeps the copies quiet);
#   - package initialisation of each binary (GODEBUG=inittrace=1: packages,
#     ms) and peak RSS of one PreToolUse.
# Every KB is indexed until its activation index holds every item record
# (a first compile of 100k loads 20,000; each sync loads more), so that
# no hook measured reads files the index would hold.
# Raw results go to bench/out/hooks/, key=value lines to
# bench/out/hooks/summary.txt. Needs go, jq and GNU time.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
sizes="1k,10k,100k"
work="$repo/bench/out/hooks-work" # in the repo: /tmp may be mounted noexec
runs=200
old=""
oldhook=""
while [ $# -gt 0 ]; do
	case "$1" in
	--sizes) sizes="$2"; shift 2 ;;
	--work) work="$2"; shift 2 ;;
	--runs) runs="$2"; shift 2 ;;
	--old) old="$2"; shift 2 ;;
	--old-hook) oldhook="$2"; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "hooks.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
for t in go jq /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "hooks.sh: $t is required" >&2; exit 1; }
done

out="$repo/bench/out/hooks"
bin="$work/bin"
mkdir -p "$out" "$bin"
sum="$out/summary.txt"
: >"$sum"
log() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }
put() { echo "$1=$2" | tee -a "$sum"; }

log "build"
(cd "$repo" && go build -o "$bin/kb" ./cmd/kb && go build -o "$bin/kb-hook" ./cmd/kb-hook && go build -o "$bin/pipelinegen" ./bench/pipelinegen && go build -o "$bin/hooklat" ./bench/hooklat)
# The no-op is built outside the module (a .go file under bench/out would be
# one of its packages for go list and go vet).
nd=$(mktemp -d)
printf 'package main\n\nfunc main() {}\n' >"$nd/noop.go"
(cd "$nd" && GO111MODULE=off go build -o "$bin/noop" noop.go)
rm -rf "$nd"
kb="$bin/kb"
hook="$bin/kb-hook"
noop="$bin/noop"
gen="$bin/pipelinegen"

put date "$(date -u +%Y-%m-%dT%H:%MZ)"
put machine "$(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(go version | awk '{print $3}')"
put kb_commit "$(cd "$repo" && git rev-parse --short HEAD)$(cd "$repo" && git diff --quiet || echo +dirty)"
put load_start "$(cut -d' ' -f1-3 /proc/loadavg)"

inits() { GODEBUG=inittrace=1 "$@" 2>&1 >/dev/null | awk '/^init /{n++; s+=$5} END {printf "%d packages, %.1f ms", n, s}'; }
put init_kb_hook "$(inits "$hook" --help)"
put init_kb "$(inits "$kb" version)"
[ -n "$old" ] && put init_old "$(inits "$old" version)"
[ -n "$oldhook" ] && put init_old_hook "$(inits "$oldhook" --help)"
put deps_kb_hook "$(cd "$repo" && go list -deps ./cmd/kb-hook | wc -l) packages (go list -deps ./cmd/kb-hook)"

# No session id: every call answers in full (a session's memory would
# leave later calls of the same session with nothing new to show).
pre='{"hook_event_name":"PreToolUse","session_id":"","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}'
start='{"hook_event_name":"SessionStart","session_id":"","cwd":"/tmp","source":"startup"}'
echo "$pre" >"$work/pre.json"
echo "$start" >"$work/start.json"
# A Write of a 6 KB source file: the written content is matched against
# every content pattern (what a silent Bash call does not measure).
for i in $(seq 40); do
	printf 'def settle_%d(order, amount, session):\n    total = order.total + amount  # the key point of step %d\n' "$i" "$i"
	printf '    return session.execute("SELECT id FROM invoices WHERE id = %%s", (order.id,))\n\n'
done >"$work/write.py"
jq -n --rawfile c "$work/write.py" '{hook_event_name:"PreToolUse",session_id:"",cwd:"/tmp",tool_name:"Write",tool_input:{file_path:"/tmp/app/billing/service.py",content:$c}}' >"$work/write.json"

# index_all KB_BINARY DIR: index DIR until its activation index holds
# every item record: until a sync leaves it as it was (a sync compiles
# it again while records are missing), at most 10 syncs.
index_all() {
	local a="$2/.index/activation.kbx" before
	for _ in $(seq 10); do
		before=$(date -r "$a" +%s%N 2>/dev/null || echo none)
		"$1" index -q --kb "$2"
		# A binary older than the activation index (b7a8beb) writes none:
		# its one index is all there is.
		[ -e "$a" ] || return 0
		[ "$before" = "$(date -r "$a" +%s%N)" ] && return 0
	done
	return 0
}

# field f of the hooklat line of command i in file.
lat() { sed -n "$(($2 + 1))p" "$1" | sed 's/.*"'"$3"'":\([0-9.]*\).*/\1/'; }

for size in ${sizes//,/ }; do
	n=${size%k}000
	k="$work/kb$size"
	if [ ! -s "$k/.index/activation.kbx" ]; then
		log "$size: generate $n observations and index"
		rm -rf "$k"; "$kb" init -q "$k"
		"$gen" obs -n "$n" -kb "$k"
		/usr/bin/time -f '%e s %M KB' -o "$out/index-$size.time" "$kb" index -q --kb "$k"
		put "index_$size" "$(cat "$out/index-$size.time")"
	fi
	# A KB kept from an earlier run: its activation index in this format,
	# with every item record loaded.
	index_all "$kb" "$k"
	put "activation_bytes_$size" "$(stat -c %s "$k/.index/activation.kbx")"
	put "answer_pre_${size}_bytes" "$(KB_HOOK_NO_INDEX=1 "$hook" --kb "$k" claude-code <"$work/pre.json" | wc -c)"
	put "answer_start_${size}_bytes" "$(KB_HOOK_NO_INDEX=1 "$hook" --kb "$k" claude-code <"$work/start.json" | wc -c)"
	put "answer_pre_${size}_same_as_kb_hook" "$(cmp -s <(KB_HOOK_NO_INDEX=1 "$hook" --kb "$k" claude-code <"$work/pre.json") <(KB_HOOK_NO_INDEX=1 "$kb" hook claude-code --kb "$k" <"$work/pre.json") && echo yes || echo no)"
	if [ -n "$old" ]; then
		if [ ! -s "$work/old$size/.index/schema" ]; then
			rm -rf "$work/old$size"; "$old" init -q "$work/old$size" >/dev/null
			cp -a "$k/observations/." "$work/old$size/observations/"
		fi
		index_all "$old" "$work/old$size"
		put "answer_pre_${size}_old_bytes" "$(KB_HOOK_NO_INDEX=1 "$old" hook claude-code --kb "$work/old$size" <"$work/pre.json" | wc -c)"
		if [ -n "$oldhook" ]; then
			for ev in pre start; do
				put "answer_${ev}_${size}_same_as_old_hook" "$(cmp -s <(KB_HOOK_NO_INDEX=1 "$hook" --kb "$k" claude-code <"$work/$ev.json") <(KB_HOOK_NO_INDEX=1 "$oldhook" --kb "$work/old$size" claude-code <"$work/$ev.json") && echo yes || echo no)"
			done
		fi
	fi
	for ev in pre start write; do
		cmds=("$noop" "$hook --kb $k claude-code" "$kb hook claude-code --kb $k")
		[ -n "$old" ] && cmds+=("$old hook claude-code --kb $work/old$size")
		[ -n "$old" ] && [ -n "$oldhook" ] && cmds+=("$oldhook --kb $work/old$size claude-code")
		log "$size: $ev"
		"$bin/hooklat" -n "$runs" -in "$work/$ev.json" -env KB_HOOK_NO_INDEX=1 -env KB_HOOK_NO_DRAIN=1 "${cmds[@]}" >"$out/$ev-$size.jsonl"
		names=(noop kb_hook kb old old_hook)
		for i in "${!cmds[@]}"; do
			put "${ev}_${size}_${names[$i]}_p50_ms" "$(lat "$out/$ev-$size.jsonl" "$i" p50_ms)"
			put "${ev}_${size}_${names[$i]}_p99_ms" "$(lat "$out/$ev-$size.jsonl" "$i" p99_ms)"
		done
	done
	/usr/bin/time -v -o "$out/rss-$size.time" "$hook" --kb "$k" claude-code <"$work/pre.json" >/dev/null
	put "rss_kb_hook_${size}_kb" "$(awk -F': ' '/Maximum resident/ {print $2}' "$out/rss-$size.time")"
	log "$size: first call on a fresh clone (no .index/)"
	c="$work/clone$size"
	: >"$out/fresh-$size.txt"
	copies=10; [ "$n" -ge 100000 ] && copies=3 # copying 100,000 files takes a while
	for i in $(seq $copies); do
		rm -rf "$c" && cp -a "$k" "$c" && rm -rf "$c/.index"
		"$bin/hooklat" -n 1 -warmup 0 -in "$work/pre.json" -env KB_HOOK_NO_INDEX=1 "$hook --kb $c claude-code" >>"$out/fresh-$size.txt"
	done
	put "fresh_clone_${size}_ms" "$(sed 's/.*"p50_ms":\([0-9.]*\).*/\1/' "$out/fresh-$size.txt" | sort -n | tr '\n' ' ')"
	rm -rf "$c"
done
put load_end "$(cut -d' ' -f1-3 /proc/loadavg)"
log "summary: $sum"
