package observations

import (
	"slices"
	"strings"

	"github.com/kbmem/kb/internal/textutil"
)

// sqlBuilt reports whether code builds a SQL statement from strings: a
// statement (SELECT ... FROM within three lines, INSERT INTO, UPDATE x
// SET, DELETE FROM) followed, within four more lines and before a ";", by
// string building: concatenation ("..." + name), %-formatting ("..." %
// x), .format(, an interpolation ({name}, ${name}, {$name}, #{name}) or
// PHP's "..." . $x.
//
// It is code, not one expression: the expression that said the same
// (`select\b(?:[^;\n]*\n){0,3}?...`), case-insensitive and with no literal
// to start from, ran Go's regexp engine from every byte of a written text;
// on a 7 KB file of queries it was half of a hook's time. Here the
// keywords are found with strings.Index and the building is looked for
// only in the lines after each statement.
func sqlBuilt(s string) bool {
	low := textutil.ASCIILower(s)
	var starts []int
	for _, kw := range []string{"select", "insert", "update", "delete"} {
		for i := 0; ; {
			j := strings.Index(low[i:], kw)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(kw)
			if at > 0 && textutil.WordByte(low[at-1]) || i < len(low) && textutil.WordByte(low[i]) {
				continue
			}
			for _, end := range statementEnds(low, kw, i) {
				if builtAfter(s, &starts, end) {
					return true
				}
			}
		}
	}
	return false
}

// statementEnds are the offsets where the statement whose keyword ends at
// i is written far enough to be one: after the FROM of a SELECT (each FROM
// within three lines, none past a ";"), after INTO, after UPDATE's table
// and SET, after DELETE's FROM.
func statementEnds(low, kw string, i int) []int {
	switch kw {
	case "select":
		var ends []int
		limit := linesAhead(low, i, 3)
		for k := i; k < limit; {
			j := strings.Index(low[k:limit], "from")
			if j < 0 {
				break
			}
			f := k + j
			k = f + len("from")
			if !textutil.WordByte(low[f-1]) && (k == len(low) || !textutil.WordByte(low[k])) {
				ends = append(ends, k)
			}
		}
		return ends
	case "insert":
		if k := afterSpace(low, i); k > i && strings.HasPrefix(low[k:], "into") && wordEnd(low, k+len("into")) {
			return []int{k + len("into")}
		}
	case "update":
		k := afterSpace(low, i)
		t := k
		for t < len(low) && (textutil.WordByte(low[t]) || low[t] == '.' || low[t] == '"') {
			t++
		}
		if k == i || t == k {
			return nil
		}
		// [\w."]+ backtracks: a table name cannot end inside "set".
		if m := afterSpace(low, t); m > t && strings.HasPrefix(low[m:], "set") && wordEnd(low, m+len("set")) {
			return []int{m + len("set")}
		}
	case "delete":
		if k := afterSpace(low, i); k > i && strings.HasPrefix(low[k:], "from") && wordEnd(low, k+len("from")) {
			return []int{k + len("from")}
		}
	}
	return nil
}

// builtAfter reports whether string building starts within four lines
// after offset end of a statement, before a ";". starts holds the
// offsets where a building form starts in s, found once (buildStarts).
func builtAfter(s string, starts *[]int, end int) bool {
	if *starts == nil {
		*starts = buildStarts(s)
	}
	limit := linesAhead(s, end, 4)
	k, _ := slices.BinarySearch(*starts, end)
	return k < len(*starts) && (*starts)[k] < limit
}

// buildStarts are the offsets in s where a form of string building
// starts: each byte that can start one (a quote, +, {, $, #) where the
// anchored expression matches.
func buildStarts(s string) []int {
	out := []int{}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'', '"', '+', '{', '$', '#':
			// A building form is short: a window the backtracking matcher
			// takes, not the text's whole tail (the NFA's, per byte).
			if sqlBuildRE.MatchString(s[i:min(i+buildWindow, len(s))]) {
				out = append(out, i)
			}
		}
	}
	return out
}

// buildWindow bounds the text a building form is matched in: its quote,
// white space and the start of what follows.
const buildWindow = 256

// sqlBuildRE is string building next to a SQL statement, where it starts.
var sqlBuildRE = textutil.Lazy(`^(?i:['"]\s*\+\s*[\w(]|\+\s*['"]|['"]\s*%\s*[\w(]|['"]\s*\.format\(|\{[a-zA-Z_][\w.]*\}|\$\{|\{\$[a-zA-Z_]|['"]\s*\.\s*\$|#\{)`)

// linesAhead is the offset where the text from i stops being the rest of
// its line plus n more lines with no ";": the first ";", or the end of
// the n-th line after i's (its newline is not included), or the text's
// end.
func linesAhead(s string, i, n int) int {
	for k := i; k < len(s); k++ {
		switch s[k] {
		case ';':
			return k
		case '\n':
			if n == 0 {
				return k
			}
			n--
		}
	}
	return len(s)
}

// afterSpace is the offset after the white space at i (i when there is
// none).
func afterSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v') {
		i++
	}
	return i
}

// wordEnd reports whether a word ends at i.
func wordEnd(s string, i int) bool { return i >= len(s) || !textutil.WordByte(s[i]) }
