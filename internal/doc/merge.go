package doc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kbmem/kb/internal/diag"
)

// Three-way merging of kb documents, the parts every layer's git merge
// driver shares: a line-wise merge of bodies (diff3), the three-way merge
// of one value and of a set, and rewriting a file's frontmatter to the
// merged fields while keeping every other byte of ours.

// ConflictsKey is the frontmatter key where a merge leaves what it could
// not decide: each entry names a field and the value of each side. The
// field keeps ours; the person resolves by editing it and deleting the
// entry. It is never a conflict marker: the file still parses.
const ConflictsKey = "kb_conflicts"

// Conflict is one field both sides changed to different values.
type Conflict struct {
	Field  string `json:"field" yaml:"field"`
	Ours   string `json:"ours" yaml:"ours"`
	Theirs string `json:"theirs" yaml:"theirs"`
}

// Hunk is a stretch of lines both sides changed differently.
type Hunk struct {
	Base, Ours, Theirs []string
}

// maxMergeCells bounds the LCS table of a line merge (lines of base times
// lines of a side); longer inputs are merged as one hunk.
const maxMergeCells = 4 << 20

// Merge3Lines merges the lines of two sides against their base, diff3
// style: a stretch one side changed takes that side, a stretch both
// changed alike takes it once, and a stretch both changed differently is
// given to resolve, whose lines are used when it reports true. Without
// resolve, or when it reports false, the hunk is written between git's
// conflict markers and counted in conflicts.
func Merge3Lines(base, ours, theirs []string, resolve func(Hunk) ([]string, bool)) (out []string, conflicts int) {
	ma, mb := matchLines(base, ours), matchLines(base, theirs)
	i, j, k := 0, 0, 0
	for {
		// The next base line both sides kept where the walk stands.
		if i < len(base) && ma[i] == j && mb[i] == k {
			out = append(out, base[i])
			i, j, k = i+1, j+1, k+1
			continue
		}
		i2 := i
		for i2 < len(base) && (ma[i2] < 0 || mb[i2] < 0) {
			i2++
		}
		j2, k2 := len(ours), len(theirs)
		if i2 < len(base) {
			j2, k2 = ma[i2], mb[i2]
		}
		o, a, b := base[i:i2], ours[j:j2], theirs[k:k2]
		switch {
		case slices.Equal(a, b), slices.Equal(o, b):
			out = append(out, a...)
		case slices.Equal(o, a):
			out = append(out, b...)
		default:
			h := Hunk{Base: o, Ours: a, Theirs: b}
			if resolve != nil {
				if lines, ok := resolve(h); ok {
					out = append(out, lines...)
					break
				}
			}
			conflicts++
			out = append(out, "<<<<<<< ours")
			out = append(out, a...)
			out = append(out, "||||||| base")
			out = append(out, o...)
			out = append(out, "=======")
			out = append(out, b...)
			out = append(out, ">>>>>>> theirs")
		}
		if i2 >= len(base) {
			return out, conflicts
		}
		i, j, k = i2, j2, k2
	}
}

// matchLines maps each line of base to the line of side it is matched
// with in a longest common subsequence, or -1; the matches increase.
func matchLines(base, side []string) []int {
	m := make([]int, len(base))
	for i := range m {
		m[i] = -1
	}
	// Common head and tail first: most merges change a few lines.
	pre := 0
	for pre < len(base) && pre < len(side) && base[pre] == side[pre] {
		m[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(base)-pre && suf < len(side)-pre && base[len(base)-1-suf] == side[len(side)-1-suf] {
		m[len(base)-1-suf] = len(side) - 1 - suf
		suf++
	}
	o, s := base[pre:len(base)-suf], side[pre:len(side)-suf]
	if len(o) == 0 || len(s) == 0 || len(o)*len(s) > maxMergeCells {
		return m
	}
	// lcs[x][y] is the LCS length of o[x:] and s[y:].
	w := len(s) + 1
	lcs := make([]int32, (len(o)+1)*w)
	for x := len(o) - 1; x >= 0; x-- {
		for y := len(s) - 1; y >= 0; y-- {
			if o[x] == s[y] {
				lcs[x*w+y] = lcs[(x+1)*w+y+1] + 1
			} else {
				lcs[x*w+y] = max(lcs[(x+1)*w+y], lcs[x*w+y+1])
			}
		}
	}
	for x, y := 0, 0; x < len(o) && y < len(s); {
		switch {
		case o[x] == s[y]:
			m[pre+x] = pre + y
			x, y = x+1, y+1
		case lcs[(x+1)*w+y] >= lcs[x*w+y+1]:
			x++
		default:
			y++
		}
	}
	return m
}

// SplitLines splits text into lines without their newlines; JoinLines is
// its inverse for text that ended with a newline.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// JoinLines joins lines with a newline after each.
func JoinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// Normalize returns v as JSON decodes it (maps, []any, float64, strings),
// so that values decoded from YAML and values built in Go compare equal
// when they say the same thing. It is nil for nil or what JSON cannot
// encode.
func Normalize(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// NormalizeFields is Normalize on every value of a field map.
func NormalizeFields(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if n := Normalize(v); n != nil {
			out[k] = n
		}
	}
	return out
}

// Same reports whether two normalized values are equal.
func Same(a, b any) bool { return reflect.DeepEqual(a, b) }

// Merge3Value is the three-way merge of one field: present (ok) or not on
// each side. A side that left the base alone takes the other's change;
// both changing it alike is that change. When both changed it differently
// conflict is true and the returned value is ours.
func Merge3Value(base, ours, theirs any, baseOK, oursOK, theirsOK bool) (v any, ok, conflict bool) {
	eq := func(x, y any, xok, yok bool) bool { return xok == yok && (!xok || Same(x, y)) }
	switch {
	case eq(ours, theirs, oursOK, theirsOK), eq(base, theirs, baseOK, theirsOK):
		return ours, oursOK, false
	case eq(base, ours, baseOK, oursOK):
		return theirs, theirsOK, false
	}
	return ours, oursOK, true
}

// MergeSet is the three-way merge of a set kept as a list: what either
// side added is in, what either side removed from the base is out; the
// order is ours, then what theirs added in its order. Without a base it is
// the union.
func MergeSet[T comparable](base, ours, theirs []T) []T {
	removed := map[T]bool{}
	inA, inB := map[T]bool{}, map[T]bool{}
	for _, x := range ours {
		inA[x] = true
	}
	for _, x := range theirs {
		inB[x] = true
	}
	for _, x := range base {
		if !inA[x] || !inB[x] {
			removed[x] = true
		}
	}
	var out []T
	seen := map[T]bool{}
	for _, side := range [][]T{ours, theirs} {
		for _, x := range side {
			if !seen[x] && !removed[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}

// UpdateTo rewrites src's frontmatter so that its fields are want (values
// compared normalized): changed and new keys are set, keys want lacks are
// deleted, and every other byte stays as it was; body replaces the body
// when not nil.
func UpdateTo(src []byte, want map[string]any, body *string) ([]byte, error) {
	d, err := ParseFrontmatter("", src)
	if err != nil {
		return nil, err
	}
	have := NormalizeFields(d.Fields)
	set := map[string]any{}
	for k, v := range want {
		if !Same(have[k], Normalize(v)) {
			set[k] = v
		}
	}
	for k := range d.Fields {
		if _, ok := want[k]; !ok {
			set[k] = nil
		}
	}
	if body != nil && *body == d.Body {
		body = nil
	}
	if len(set) == 0 && body == nil {
		return src, nil
	}
	return Update(src, set, body)
}

// HasConflictMarkers reports whether b holds a line of git's conflict
// markers.
func HasConflictMarkers(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		l = bytes.TrimRight(l, "\r")
		if bytes.HasPrefix(l, []byte("<<<<<<< ")) || bytes.HasPrefix(l, []byte(">>>>>>> ")) || bytes.Equal(l, []byte("=======")) {
			return true
		}
	}
	return false
}

// Trivial3 is the merge of three versions when at most one side changed
// anything: the changed side as it is, parsed or not, as git itself takes
// it without calling a driver; ok is false when both sides changed. Every
// merge driver (observations, episodes, learn's index) starts with it, so
// each promises a merge that parses only when both sides parse.
func Trivial3(base, ours, theirs []byte) (out []byte, ok bool) {
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		return ours, true
	case bytes.Equal(base, ours):
		return theirs, true
	}
	return nil, false
}

// ReadConflicts decodes kb_conflicts values (as decoded from YAML) and
// adds more, each conflict once; entries of the wrong shape are skipped.
func ReadConflicts(values []any, add []Conflict) []Conflict {
	var out []Conflict
	put := func(c Conflict) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, v := range values {
		items, _ := Normalize(v).([]any)
		for _, it := range items {
			if e, ok := it.(map[string]any); ok {
				var c Conflict
				c.Field, _ = e["field"].(string)
				c.Ours, _ = e["ours"].(string)
				c.Theirs, _ = e["theirs"].(string)
				put(c)
			}
		}
	}
	for _, c := range add {
		put(c)
	}
	return out
}

// ConflictsValue is the kb_conflicts value of conflicts: nil (delete the
// key) for none.
func ConflictsValue(cs []Conflict) any {
	if len(cs) == 0 {
		return nil
	}
	out := make([]map[string]any, 0, len(cs))
	for _, c := range cs {
		out = append(out, map[string]any{"field": c.Field, "ours": c.Ours, "theirs": c.Theirs})
	}
	return out
}

// UnionKeys returns the keys of the maps, sorted, each once.
func UnionKeys(ms ...map[string]any) []string {
	var keys []string
	for _, m := range ms {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// ShowValue is a field value as a person reads it in kb_conflicts.
func ShowValue(v any, ok bool) string {
	if !ok || v == nil {
		return "(absent)"
	}
	if s, isStr := v.(string); isStr {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// ParseSides parses the two sides of a 3-way merge of the file at rel
// with parse, and its base when there is one: a base that is empty or
// does not parse is no base (hasBase false), while a side that does not
// parse is the error: the merge cannot go on.
func ParseSides[F any](rel string, base, ours, theirs []byte, parse func(rel string, b []byte) (F, *diag.Problem)) (a, b, o F, hasBase bool, err error) {
	var p *diag.Problem
	if a, p = parse(rel, ours); p != nil {
		return a, b, o, false, fmt.Errorf("ours: %s", p)
	}
	if b, p = parse(rel, theirs); p != nil {
		return a, b, o, false, fmt.Errorf("theirs: %s", p)
	}
	if len(bytes.TrimSpace(base)) > 0 {
		if f, p := parse(rel, base); p == nil {
			return a, b, f, true, nil
		}
	}
	return a, b, o, false, nil
}
