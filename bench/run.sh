#!/usr/bin/env bash
# bench/run.sh: kb's search benchmarks against ripgrep and SQLite FTS5, on
# deterministic synthetic corpora of 1k, 10k and 100k notes (bench/gencorpus).
#
#   bench/run.sh [--sizes 1k,10k,100k] [--seed 1] [--install] [--keep-db] [--old KB_BINARY] [--issue16-only]
#
# Corpora are cached under bench/corpus/ (regenerated when the generator
# changes), raw results go to bench/out/ (both git-ignored), and the
# markdown table for BENCHMARKS.md is printed at the end (also saved as
# bench/out/table.md). Every figure is measured in the same run as its
# baseline, on the same files, with page cache warm:
#
#   full index      `rm -rf .index; kb index` vs an sqlite3 process that
#                   creates an FTS5 (porter) table and loads the same files
#   edit -> search  append a unique word to one note, then `kb search WORD`
#                   as a whole process (file scan + re-index + query)
#   warm search     `kb search WORD` vs `rg -l -i WORD library/` vs
#                   `sqlite3 db "... MATCH 'WORD' LIMIT 10"`: hyperfine
#                   --warmup 3 --runs 10 over 3 mid-frequency words
#   in-process      bench/querylat: p50/p99 of 1000 queries through the kb facade
#   peak RSS        /usr/bin/time -v of the full index and of `kb search`
#   disk            du -sb of .index/, of library/ and of the FTS5 db
#   issue 16        a rare, a mid-frequency and a common word: `kb search`
#                   plain (watch.keeper_files: 0, every file stat'ed) and
#                   with the freshness keeper the first search starts (the
#                   default at 5,000 files and more; "watch" in the file
#                   names: kb watch runs the same keeper), vs `rg -l -i` and
#                   ranked FTS5, as CPU time and wall time; the hits of each
#                   engine and whether kb found every file rg found (a single
#                   word); edit -> search plain and with the keeper; peak RSS of both
#                   searches, and of the keeper's split by bench/procrss into
#                   the process's own memory (RssAnon) and the file pages it
#                   maps (RssFile: its binary, the index's segments, shared
#                   with the page cache). With --old BIN (a kb binary of another commit)
#                   the same searches and edit run on a copy of the corpus
#                   indexed by BIN, in the same hyperfine runs: bench/out/
#                   SIZE/issue16.md, and all sizes in bench/out/issue16.md.
#                   --issue16-only runs these alone, on the index as it is
#                   (with --keep-db, on the FTS5 db of the last run).
#
# Needs go, hyperfine and jq; ripgrep, sqlite3 and GNU time are baselines
# that are skipped, with a message, when missing. --install (as root)
# installs the missing ones with apt-get.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
sizes="1k,10k,100k"
seed=1
install=0
keepdb=0
old=""
only16=0
while [ $# -gt 0 ]; do
	case "$1" in
	--sizes) sizes="$2"; shift 2 ;;
	--sizes=*) sizes="${1#*=}"; shift ;;
	--seed) seed="$2"; shift 2 ;;
	--install) install=1; shift ;;
	--keep-db) keepdb=1; shift ;;
	--old) old="$2"; shift 2 ;;
	--issue16-only) only16=1; shift ;;
	-h|--help) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

log() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }
warn() { printf 'run.sh: %s\n' "$*" >&2; }

# --- tools -----------------------------------------------------------------
declare -A pkg=([hyperfine]=hyperfine [jq]=jq [rg]=ripgrep [sqlite3]=sqlite3 [/usr/bin/time]=time)
have() { command -v "$1" >/dev/null 2>&1; }
missing=()
for t in hyperfine jq rg sqlite3 /usr/bin/time; do have "$t" || missing+=("$t"); done
if [ ${#missing[@]} -gt 0 ] && [ $install = 1 ]; then
	if [ "$(id -u)" != 0 ]; then
		warn "--install needs root; missing: ${missing[*]}"
	else
		pkgs=(); for t in "${missing[@]}"; do pkgs+=("${pkg[$t]}"); done
		log "installing ${pkgs[*]}"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >&2
	fi
fi
for t in go hyperfine jq; do
	have "$t" || { warn "$t is required (apt-get install ${pkg[$t]:-golang}, or rerun as root with --install)"; exit 1; }
done
have_rg=1; have rg || { have_rg=0; warn "ripgrep (rg) missing: skipping the rg baseline (apt-get install ripgrep, or --install)"; }
have_sq=1
if ! have sqlite3; then
	have_sq=0; warn "sqlite3 missing: skipping the FTS5 baseline (apt-get install sqlite3, or --install)"
elif ! sqlite3 :memory: "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61'); SELECT count(*) FROM fsdir('.') LIMIT 1;" >/dev/null 2>&1; then
	have_sq=0; warn "sqlite3 lacks FTS5 or fsdir(): skipping the FTS5 baseline"
fi
have_time=1; [ -x /usr/bin/time ] || { have_time=0; warn "GNU time (/usr/bin/time) missing: skipping peak RSS (apt-get install time, or --install)"; }

# --- build -----------------------------------------------------------------
out="$repo/bench/out"
corpora="$repo/bench/corpus"
bin="$out/bin"
mkdir -p "$out" "$corpora" "$bin"
log "building kb, gencorpus, querylat, report"
build=fresh
if ! (cd "$repo" && go build -o "$bin/kb.new" ./cmd/kb && go build -o "$bin/gencorpus" ./bench/gencorpus \
	&& go build -o "$bin/querylat.new" ./bench/querylat && go build -o "$bin/report" ./bench/report \
	&& go build -o "$bin/procrss" ./bench/procrss); then
	# In a tree where other packages are mid-edit the build can fail; the
	# previous binaries are then used, and the results say so.
	[ -x "$bin/kb" ] && [ -x "$bin/querylat" ] && [ -x "$bin/gencorpus" ] && [ -x "$bin/report" ] \
		|| { warn "build failed and no previous binaries in $bin"; exit 1; }
	build="previous build of $(date -u -r "$bin/kb" +%Y-%m-%dT%H:%MZ) (the tree did not compile)"
	warn "build failed: using the $build"
else
	mv "$bin/kb.new" "$bin/kb"; mv "$bin/querylat.new" "$bin/querylat"
fi
KB="$bin/kb"

# --- machine ---------------------------------------------------------------
{
	echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
	echo "nproc=$(nproc)"
	echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "ram_gib=$(awk '/MemTotal/ {printf "%.1f", $2/1048576}' /proc/meminfo)"
	echo "go=$(go version | awk '{print $3}')"
	echo "kb_commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$( [ -n "$(git -C "$repo" status --porcelain 2>/dev/null | head -1)" ] && echo '+dirty')"
	echo "kb_build=$build"
	echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "hyperfine=$(hyperfine --version | awk '{print $2}')"
	[ $have_rg = 1 ] && echo "rg=$(rg --version | head -1 | awk '{print $2}')"
	[ $have_sq = 1 ] && echo "sqlite=$(sqlite3 --version | awk '{print $1}')"
	echo "seed=$seed"
	echo "sizes=$sizes"
} >"$out/machine.txt"

num() { case "$1" in *k) echo $(( ${1%k} * 1000 )) ;; *) echo "$1" ;; esac; }
rss_kb() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }

restore_note=""
cleanup() {
	if [ -n "$restore_note" ] && [ -f "$restore_note.bak" ]; then
		cp "$restore_note.bak" "$restore_note" && rm -f "$restore_note.bak"
	fi
}
trap cleanup EXIT

# keeper_files DIR N: kb.yaml's watch.keeper_files of the KB at DIR (0: no
# search starts a freshness keeper; kb's default is 5000).
keeper_files() {
	if grep -q '^  keeper_files:' "$1/kb.yaml"; then
		sed -i "s/^  keeper_files: .*/  keeper_files: $2/" "$1/kb.yaml"
	elif grep -q '^watch:' "$1/kb.yaml"; then
		sed -i "s/^watch:.*/watch:\n  keeper_files: $2/" "$1/kb.yaml"
	else
		printf 'watch:\n  keeper_files: %s\n' "$2" >>"$1/kb.yaml"
	fi
}
# stop_keeper DIR: stops the freshness keeper a search started for DIR.
keeper_dir=""
stop_keeper() { [ -n "$keeper_dir" ] && pkill -f -- "--kb $keeper_dir watch --keeper" 2>/dev/null; keeper_dir=""; }

# issue16 LABEL N SRC RES DB: the figures issue 16 asks for (see the header).
trap 'stop_keeper; cleanup' EXIT
issue16() {
	local label=$1 n=$2 src=$3 res=$4 db=$5
	local lib="$src/library" oldsrc="$out/old-$label"
	echo "start $(cut -d' ' -f1-3 /proc/loadavg)" >"$res/load16"
	# rare: the lowest document frequency above 0; common: the highest that is at
	# most 80% of the notes (the top word is in nearly every note).
	local rare mid common
	rare=$(jq -r '[.doc_freq | to_entries[] | select(.value > 0)] | min_by(.value) | .key' "$src/bench-meta.json")
	mid=$(jq -r '.mid_words[0]' "$src/bench-meta.json")
	common=$(jq -r --argjson n "$n" '[.doc_freq | to_entries[] | select(.value <= 0.8 * $n)] | max_by(.value) | .key' "$src/bench-meta.json")
	echo "rare=$rare mid=$mid common=$common" >"$res/words16"
	if [ -n "$old" ]; then
		log "$label: indexing a copy of the corpus with $old"
		rm -rf "$oldsrc"; cp -a "$src" "$oldsrc"; rm -rf "$oldsrc/.index"
		local tmp; tmp=$(mktemp -d "$out/oldinit.XXXX")
		"$old" -q init "$tmp/k" >/dev/null && cp "$tmp/k/kb.yaml" "$oldsrc/kb.yaml"; rm -rf "$tmp"
		# Plain, as $src is: the default of a fresh kb.yaml (5,000 files)
		# would have the old binary's first search at 10k start a keeper,
		# and its plain figures be keeper figures.
		keeper_files "$oldsrc" 0
		"$old" -q --kb "$oldsrc" index >/dev/null
	fi
	log "$label: issue 16 searches, plain"
	# (no -n names with -L: bench/report tells the commands apart)
	local cmds=("$KB --kb $src search {word}")
	[ -n "$old" ] && cmds+=("$old --kb $oldsrc search {word}")
	[ $have_rg = 1 ] && cmds+=("rg -l -i {word} $lib")
	[ $have_sq = 1 ] && cmds+=("sqlite3 $db \"SELECT path FROM notes WHERE notes MATCH '{word}' ORDER BY rank LIMIT 10\"")
	hyperfine -N --warmup 3 --runs 20 -L word "$rare,$mid,$common" --export-json "$res/search16.json" "${cmds[@]}" >&2
	# hits: kb's total, rg's files (-i: the string anywhere, also inside
	# a longer word; -i -w: the word), FTS5's rows; kb must find every file
	# in which rg finds the word
	for w in "$rare" "$mid" "$common"; do
		local kbt rgt=- rgw=- sqt=- miss=-
		"$KB" -q --kb "$src" search "$w" --json --limit 1000000 >"$res/hits16-$w.json"
		kbt=$(jq -r '.total' "$res/hits16-$w.json")
		if [ $have_rg = 1 ]; then
			rgt=$(rg -l -i "$w" "$lib" | wc -l)
			rgw=$(rg -l -i -w "$w" "$lib" | wc -l)
			# kb lists at most 10,000 hits (index.MaxLimit): past that only
			# the totals compare
			miss="capped (kb lists 10,000)"
			[ "$kbt" -le 10000 ] && miss=$(comm -23 <(rg -l -i -w "$w" "$lib" | sed "s|^$src/||" | sort) \
				<(jq -r '.hits[].path' "$res/hits16-$w.json" | sort) | wc -l)
		fi
		rm -f "$res/hits16-$w.json"
		[ $have_sq = 1 ] && sqt=$(sqlite3 "$db" "SELECT count(*) FROM notes WHERE notes MATCH '$w'")
		echo "$w kb=$kbt rg=$rgt rg_w=$rgw fts5=$sqt rg_w_not_in_kb=$miss"
	done >"$res/hits16.txt"
	[ $have_time = 1 ] && /usr/bin/time -v -o "$res/rss16-plain.txt" "$KB" -q --kb "$src" search "$common" >/dev/null

	# one edited note, plain (a fresh word each run: a word appended before
	# would be found without the edit being indexed)
	local rel note
	rel=$(printf 'library/notes/%03d/note-%06d.md' $(( n / 2 / 1000 )) $(( n / 2 )))
	note="$src/$rel"
	cp "$note" "$note.bak"; restore_note="$note"
	local ecmd=(-n kb-edit "sh -c 'w=zqx\$(date +%s%N | tr 0-9 a-j); printf \" %s\\n\" \$w >> $note; $KB --kb $src search \$w --limit 1 | grep -q $rel'")
	if [ -n "$old" ]; then
		cp "$oldsrc/$rel" "$oldsrc/$rel.bak"
		ecmd+=(-n kb-old-edit "sh -c 'w=zqx\$(date +%s%N | tr 0-9 a-j); printf \" %s\\n\" \$w >> $oldsrc/$rel; $old --kb $oldsrc search \$w --limit 1 | grep -q $rel'")
	fi
	hyperfine -N --warmup 1 --runs 10 --export-json "$res/edit16-plain.json" "${ecmd[@]}" >&2
	cleanup; restore_note=""
	[ -n "$old" ] && mv "$oldsrc/$rel.bak" "$oldsrc/$rel" && "$old" -q --kb "$oldsrc" index >/dev/null
	"$KB" -q --kb "$src" index >/dev/null

	# the same with the freshness keeper a search starts (kb's default at
	# watch.keeper_files = 5,000 files and more; here at every size; kb
	# watch runs the same keeper)
	log "$label: issue 16 searches with the freshness keeper"
	keeper_files "$src" 1; keeper_dir="$src"
	"$KB" -q --kb "$src" search "$rare" >/dev/null # stats every file, starts the keeper
	for _ in $(seq 100); do [ -e "$src/.index/fresh/keeper.lock" ] && break; sleep 0.1; done
	sleep 0.5
	"$KB" -q --kb "$src" search "$rare" >/dev/null # the keeper's first answer is "all": one full scan
	hyperfine -N --warmup 3 --runs 20 -L word "$rare,$mid,$common" --export-json "$res/search16-watch.json" \
		"$KB --kb $src search {word}" >&2
	[ $have_time = 1 ] && /usr/bin/time -v -o "$res/rss16-watch.txt" "$KB" -q --kb "$src" search "$common" >/dev/null
	# The same peak split into the process's own memory and the file pages
	# it maps (its binary, the index's segments; shared with the page cache).
	[ -x "$bin/procrss" ] && "$bin/procrss" -n 5 "$KB" -q --kb "$src" search "$common" >"$res/rss16-watch-split.jsonl"
	cp "$note" "$note.bak"; restore_note="$note"
	hyperfine -N --warmup 1 --runs 10 --export-json "$res/edit16-watch.json" \
		-n kb-keeper-edit "sh -c 'w=zqx\$(date +%s%N | tr 0-9 a-j); printf \" %s\\n\" \$w >> $note; $KB --kb $src search \$w --limit 1 | grep -q $rel'" >&2
	cleanup; restore_note=""
	stop_keeper; keeper_files "$src" 0
	"$KB" -q --kb "$src" index >/dev/null
	rm -rf "$oldsrc"
	echo "end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$res/load16"
	"$bin/report" -issue16 "$res" >"$res/issue16.md" || true
}

gen_key=$("$bin/gencorpus" -version) # bump FormatVersion in gencorpus when its output changes

IFS=, read -ra labels <<<"$sizes"
for label in "${labels[@]}"; do
	n=$(num "$label")
	src="$corpora/$label"
	res="$out/$label"
	if [ $only16 = 1 ]; then mkdir -p "$res"; rm -f "$res"/*16*; else rm -rf "$res"; mkdir -p "$res"; fi
	echo "$n" >"$res/notes"

	# --- corpus ---------------------------------------------------------
	key="n=$n seed=$seed format=$gen_key"
	if [ "$(cat "$src/.bench-key" 2>/dev/null)" != "$key" ]; then
		log "$label: generating $n notes into $src"
		rm -rf "$src"
		"$KB" -q init "$src" >/dev/null
		t0=$(date +%s.%N)
		"$bin/gencorpus" -n "$n" -seed "$seed" -out "$src"
		echo "$(date +%s.%N) - $t0" | bc -l >"$res/gen-seconds" 2>/dev/null || true
		echo "$key" >"$src/.bench-key"
	else
		log "$label: using cached corpus $src"
	fi
	keeper_files "$src" 0 # every search stats every file, unless a section says otherwise
	meta="$src/bench-meta.json"
	cp "$meta" "$res/meta.json"
	mapfile -t words < <(jq -r '.mid_words[:3][]' "$meta")
	wordlist=$(IFS=,; echo "${words[*]}")
	lib="$src/library"
	db="$out/work-$label.fts5.db"

	if [ $only16 = 1 ]; then
		# --issue16-only: the index as it is (brought up to date), FTS5 db made if missing
		"$KB" -q --kb "$src" index >/dev/null
		if [ $have_sq = 1 ] && [ ! -s "$db" ]; then
			(cd "$src" && sqlite3 "$db" "CREATE VIRTUAL TABLE notes USING fts5(path UNINDEXED, body, tokenize='porter unicode61'); INSERT INTO notes(path, body) SELECT name, CAST(data AS TEXT) FROM fsdir('library') WHERE name LIKE '%.md' AND mode & 0x8000;")
		fi
	else
		# --- full index + its peak RSS ----------------------------------------
		# `rm -rf .index; kb index` does what `kb index --rebuild` does (Reset,
		# then index every file) without first opening the old index. GNU time
		# wraps the command so that the same runs give the peak RSS (of the last
		# run); its overhead is a fork+exec, well under a millisecond.
		runs=3; [ "$n" -ge 100000 ] && runs=1
		log "$label: full index, kb vs FTS5 load ($runs runs each)"
		wrap=""; [ $have_time = 1 ] && wrap="/usr/bin/time -v -o $res/rss-index.txt"
		hyperfine -N --runs "$runs" --prepare "rm -rf $src/.index" --export-json "$res/index.json" \
			-n kb-index "$wrap $KB -q --kb $src index" >&2
		"$KB" --kb "$src" index --json >"$res/index-check.json" # no-op sync: must report 0 added/updated
		if [ $have_sq = 1 ]; then
			cat >"$res/load.sql" <<-EOF
				CREATE VIRTUAL TABLE notes USING fts5(path UNINDEXED, body, tokenize='porter unicode61');
				INSERT INTO notes(path, body) SELECT name, CAST(data AS TEXT) FROM fsdir('library') WHERE name LIKE '%.md' AND mode & 0x8000;
			EOF
			hyperfine --runs "$runs" --prepare "rm -f $db" --export-json "$res/fts5-load.json" \
				-n fts5-load "cd $src && sqlite3 $db < $res/load.sql" >&2
			sqlite3 "$db" "SELECT count(*) FROM notes" >"$res/fts5-count"
		fi

		# --- peak RSS of the searches ------------------------------------------
		if [ $have_time = 1 ]; then
			log "$label: peak RSS of kb search and the baselines"
			/usr/bin/time -v -o "$res/rss-search.txt" "$KB" -q --kb "$src" search "${words[0]}" >/dev/null
			if [ $have_sq = 1 ]; then
				/usr/bin/time -v -o "$res/rss-fts5-search.txt" sqlite3 "$db" "SELECT path FROM notes WHERE notes MATCH '${words[0]}' ORDER BY rank LIMIT 10" >/dev/null
			fi
			[ $have_rg = 1 ] && /usr/bin/time -v -o "$res/rss-rg.txt" rg -l -i "${words[0]}" "$lib" >/dev/null
		fi

		# --- hit counts (sanity: the engines agree roughly) -------------------
		for w in "${words[@]}"; do
			kbt=$("$KB" -q --kb "$src" search "$w" --json | jq '.total')
			rgt=-; [ $have_rg = 1 ] && rgt=$(rg -l -i "$w" "$lib" | wc -l)
			sqt=-; [ $have_sq = 1 ] && sqt=$(sqlite3 "$db" "SELECT count(*) FROM notes WHERE notes MATCH '$w'")
			echo "$w kb=$kbt rg=$rgt fts5=$sqt df=$(jq ".doc_freq[\"$w\"]" "$meta")"
		done >"$res/hits.txt"

		# --- warm search as a process ----------------------------------------
		log "$label: warm search as a process, words: $wordlist"
		# (no -n names: with -L, hyperfine wants one per word; report classifies by command)
		cmds=("$KB --kb $src search {word}")
		[ $have_rg = 1 ] && cmds+=("rg -l -i {word} $lib")
		[ $have_sq = 1 ] && cmds+=("sqlite3 $db \"SELECT path FROM notes WHERE notes MATCH '{word}' LIMIT 10\""
			"sqlite3 $db \"SELECT path FROM notes WHERE notes MATCH '{word}' ORDER BY rank LIMIT 10\"")
		hyperfine -N --warmup 3 --runs 10 -L word "$wordlist" --export-json "$res/search.json" "${cmds[@]}" >&2

		# --- one edited note searchable -------------------------------------
		log "$label: one edited note -> kb search finds it"
		rel=$(printf 'library/notes/%03d/note-%06d.md' $(( n / 2 / 1000 )) $(( n / 2 )))
		note="$src/$rel"
		cp "$note" "$note.bak"; restore_note="$note"
		uniq="zqxedit$seed"
		cmds=(-n kb-edit-search "$KB --kb $src search $uniq --limit 1")
		[ $have_rg = 1 ] && cmds+=(-n rg-edit "rg -l -i $uniq $lib")
		hyperfine -N --runs 10 --prepare "sh -c 'printf \" $uniq\\n\" >> $note'" --export-json "$res/edit.json" "${cmds[@]}" >&2
		printf ' %s\n' "$uniq" >>"$note"
		found=$("$KB" --kb "$src" search "$uniq" --json --limit 1 | jq -r '.hits[0].path // "none"')
		echo "$found" >"$res/edit-found"
		[ "$found" = "$rel" ] || warn "$label: the edited note was NOT found by kb search (got $found, want $rel)"
		cleanup; restore_note=""
		"$KB" -q --kb "$src" index >/dev/null # back in sync with the restored note

		# --- in-process latency ----------------------------------------------
		log "$label: in-process query latency (querylat, 1000 queries)"
		"$bin/querylat" -kb "$src" -n 1000 -json -cpuprofile "$res/querylat.cpu.pprof" >"$res/querylat.json"

	fi
	# --- issue 16: rare / mid / common words, plain and under kb watch ----
	issue16 "$label" "$n" "$src" "$res" "$db"

	# --- disk -------------------------------------------------------------
	du -sb "$src/.index" | cut -f1 >"$res/index-bytes"
	du -sb "$lib" | cut -f1 >"$res/library-bytes"
	jq '.bytes' "$meta" >"$res/notes-bytes"
	[ $have_sq = 1 ] && stat -c %s "$db" >"$res/fts5-bytes"
	[ $keepdb = 1 ] || rm -f "$db"
	echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$res/load"
done
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"

"$bin/report" -out "$out" -sizes "$sizes" | tee "$out/table.md"
for label in "${labels[@]}"; do cat "$out/$label/issue16.md"; echo; done | tee "$out/issue16.md"
