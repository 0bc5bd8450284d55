package episodes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/markdown"
	"github.com/kbmem/kb/internal/textutil"
)

// Outcomes of an episode.
const (
	OutcomeAccomplished = "accomplished"
	OutcomeAbandoned    = "abandoned"
	OutcomeOpen         = "open"
)

// Type is the frontmatter type of an episode file.
const Type = "episode"

// DigestKey holds a hash of the text kb generated, to tell a person's edit.
const DigestKey = doc.DigestKey

// Scope is the sessions and time span an episode covers.
type Scope struct {
	Sessions []string  `json:"sessions"`
	From     time.Time `json:"from,omitzero"`
	To       time.Time `json:"to,omitzero"`
	Branch   string    `json:"branch,omitempty"`
}

// Artifacts are what an episode produced.
type Artifacts struct {
	Files   []string `json:"files,omitempty"`   // paths touched by tool calls
	Commits []string `json:"commits,omitempty"` // commit messages seen in the sessions
	Notes   []string `json:"notes,omitempty"`   // library notes derived from its observations
}

// Episode is one bounded unit of work.
type Episode struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	Goal        string    `json:"goal"`
	Scope       Scope     `json:"scope"`
	Outcome     string    `json:"outcome"`
	Tasks       []string  `json:"tasks,omitempty"`       // task references: #123, ABC-123
	Decisions   []string  `json:"decisions,omitempty"`   // decision observation ids
	Corrections []string  `json:"corrections,omitempty"` // correction observation ids
	Lessons     []string  `json:"lessons,omitempty"`
	OpenThreads []string  `json:"open_threads,omitempty"`
	Artifacts   Artifacts `json:"artifacts"`
}

// MakeID is the deterministic id of an episode made of these sessions.
func MakeID(sessions []string) string {
	s := append([]string(nil), sessions...)
	sort.Strings(s)
	sum := sha256.Sum256([]byte(strings.Join(s, "\n")))
	return "ep-" + hex.EncodeToString(sum[:])[:10]
}

// Render writes an episode as a markdown document with frontmatter and a
// kb_digest of the generated text.
func Render(e *Episode) ([]byte, error) {
	fields := []doc.Field{
		{Key: "id", Value: e.ID}, {Key: "type", Value: Type}, {Key: "title", Value: e.Title},
		{Key: "description", Value: shorten(e.Goal, 160)}, {Key: "status", Value: e.Outcome},
		{Key: "outcome", Value: e.Outcome}, {Key: "goal", Value: e.Goal},
		{Key: "sessions", Value: e.Scope.Sessions}, {Key: "from", Value: timeStr(e.Scope.From)}, {Key: "to", Value: timeStr(e.Scope.To)},
		{Key: "branch", Value: e.Scope.Branch}, {Key: "tasks", Value: e.Tasks},
		{Key: "decisions", Value: e.Decisions}, {Key: "corrections", Value: e.Corrections},
		{Key: "lessons", Value: e.Lessons}, {Key: "open_threads", Value: e.OpenThreads},
		{Key: "files", Value: e.Artifacts.Files}, {Key: "commits", Value: e.Artifacts.Commits}, {Key: "notes", Value: e.Artifacts.Notes},
		{Key: "sources", Value: e.Scope.Sessions}, {Key: "related", Value: append(append(append([]string{}, e.Decisions...), e.Corrections...), e.Artifacts.Notes...)},
	}
	body := renderBody(e)
	out, err := doc.Render(fields, body)
	if err != nil {
		return nil, fmt.Errorf("render episode %s: %w", e.ID, err)
	}
	// The digest is taken over the file as it reads back, so that Edited
	// sees exactly what it hashed.
	d, err := markdown.Parse("", out)
	if err != nil {
		return nil, fmt.Errorf("render episode %s: %w", e.ID, err)
	}
	return doc.Update(out, map[string]any{DigestKey: digest(d)}, nil)
}

// digest hashes an episode's fields and body (doc.Digest): every part of
// an episode file is kb's text.
func digest(d *doc.Document) string { return doc.Digest(d.Fields, d.Body, nil, nil) }

func timeStr(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func renderBody(e *Episode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", e.Title)
	fmt.Fprintf(&b, "**Goal:** %s\n\n", e.Goal)
	fmt.Fprintf(&b, "**Outcome:** %s. %d session(s)", e.Outcome, len(e.Scope.Sessions))
	if !e.Scope.From.IsZero() {
		fmt.Fprintf(&b, " from %s to %s", e.Scope.From.UTC().Format("2006-01-02 15:04"), e.Scope.To.UTC().Format("2006-01-02 15:04"))
	}
	if e.Scope.Branch != "" {
		fmt.Fprintf(&b, " on branch `%s`", e.Scope.Branch)
	}
	b.WriteString(".\n\n")
	list := func(title string, items []string, link bool) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "## %s\n\n", title)
		for _, it := range items {
			if link {
				fmt.Fprintf(&b, "- [[%s]]\n", it)
			} else {
				fmt.Fprintf(&b, "- %s\n", it)
			}
		}
		b.WriteString("\n")
	}
	list("Key decisions", e.Decisions, true)
	list("Corrections", e.Corrections, true)
	list("Lessons", e.Lessons, false)
	list("Open threads", e.OpenThreads, false)
	list("Files touched", e.Artifacts.Files, false)
	list("Commits", e.Artifacts.Commits, false)
	list("Library notes", e.Artifacts.Notes, true)
	b.WriteString("Sessions: " + strings.Join(e.Scope.Sessions, ", ") + "\n")
	return b.String()
}

// Edited reports whether a person changed an episode file kb wrote: its
// stored digest no longer matches its text. A file without a digest was
// written by a person. Files written before episodes used doc.Digest
// carry a hash of their bytes instead (byteDigest): either one matching
// means unedited.
func Edited(src []byte) bool {
	d, err := markdown.Parse("", src)
	if err != nil {
		return true
	}
	want, _ := d.Fields[DigestKey].(string)
	return want == "" || want != digest(d) && want != byteDigest(src)
}

// byteDigest is the digest episode files had before doc.Digest: a hash of
// the file without its kb_digest line. It is read, never written.
func byteDigest(src []byte) string {
	var keep [][]byte
	for _, l := range bytes.Split(src, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte(DigestKey+":")) {
			keep = append(keep, bytes.TrimRight(l, " \t\r"))
		}
	}
	sum := sha256.Sum256(bytes.Join(keep, []byte("\n")))
	return hex.EncodeToString(sum[:])[:16]
}

// ParseError reports an episode file that is not an episode.
type ParseError = diag.Problem

// Parse reads an episode file. Missing fields stay empty; a field of the
// wrong shape or a file of another type is a *ParseError with its line.
func Parse(path string, src []byte) (*Episode, error) {
	d, err := markdown.Parse(path, src)
	if err != nil {
		var pe *doc.ParseError
		if ok := asParseError(err, &pe); ok {
			return nil, &ParseError{Path: path, Line: pe.Line, Msg: pe.Msg}
		}
		return nil, &ParseError{Path: path, Msg: err.Error()}
	}
	if d.Type != "" && d.Type != Type {
		return nil, &ParseError{Path: path, Line: d.KeyLine("type"), Msg: fmt.Sprintf("type is %q, not %q", d.Type, Type)}
	}
	e := &Episode{ID: d.ID, Title: d.Title}
	var perr error
	str := func(key string) string {
		v, ok := d.Fields[key]
		if !ok || v == nil {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			s = fmt.Sprint(v)
		}
		return s
	}
	list := func(key string) []string {
		v, ok := d.Fields[key]
		if !ok || v == nil {
			return nil
		}
		switch x := v.(type) {
		case []any:
			var out []string
			for _, it := range x {
				switch it.(type) {
				case map[string]any, []any:
					if perr == nil {
						perr = &ParseError{Path: path, Line: d.KeyLine(key), Msg: key + ": want a list of strings"}
					}
				default:
					out = append(out, fmt.Sprint(it))
				}
			}
			return out
		case string:
			return []string{x}
		}
		if perr == nil {
			perr = &ParseError{Path: path, Line: d.KeyLine(key), Msg: fmt.Sprintf("%s: want a list, got %T", key, v)}
		}
		return nil
	}
	tm := func(key string) time.Time {
		s := str(key)
		if s == "" {
			return time.Time{}
		}
		t, err := doc.ParseTime(s)
		if err != nil && perr == nil {
			perr = &ParseError{Path: path, Line: d.KeyLine(key), Msg: fmt.Sprintf("%s: %v", key, err)}
		}
		return t
	}
	e.Goal = str("goal")
	e.Outcome = str("outcome")
	e.Scope = Scope{Sessions: list("sessions"), From: tm("from"), To: tm("to"), Branch: str("branch")}
	e.Tasks = list("tasks")
	e.Decisions = list("decisions")
	e.Corrections = list("corrections")
	e.Lessons = list("lessons")
	e.OpenThreads = list("open_threads")
	e.Artifacts = Artifacts{Files: list("files"), Commits: list("commits"), Notes: list("notes")}
	if perr != nil {
		return nil, perr
	}
	if e.ID == "" && len(e.Scope.Sessions) > 0 {
		e.ID = MakeID(e.Scope.Sessions)
	}
	switch e.Outcome {
	case "", OutcomeAccomplished, OutcomeAbandoned, OutcomeOpen:
	default:
		return nil, &ParseError{Path: path, Line: d.KeyLine("outcome"), Msg: fmt.Sprintf("outcome %q is not accomplished, abandoned or open", e.Outcome)}
	}
	return e, nil
}

func asParseError(err error, target **doc.ParseError) bool {
	return errors.As(err, target)
}

// shorten cuts text the way every layer does.
var shorten = textutil.Shorten
