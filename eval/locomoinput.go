package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/kbmem/kb/internal/diag"
)

// Reading locomo10.json: conversations, sessions with their dates, turns
// with their dia_ids, and the questions with the evidence turns they name.

type locomoSampleJSON struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQAJSON             `json:"qa"`
}

type locomoQAJSON struct {
	Question string          `json:"question"`
	Evidence json.RawMessage `json:"evidence"`
	Category int             `json:"category"`
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

type locomoSession struct {
	N        int
	DateText string
	Time     time.Time
	Turns    []locomoTurn
}

type locomoQuestion struct {
	Question string
	Category int
	Evidence []string
}

type locomoConv struct {
	ID        string
	Sessions  []locomoSession
	Questions []locomoQuestion
	Skipped   int // questions without valid evidence
	Dropped   int // evidence strings dropped
	Problems  []string
}

// LocomoError reports a locomo10.json that cannot be read, with the line
// of the problem when it is known.
type LocomoError = diag.Problem

var (
	sessionKeyRE = regexp.MustCompile(`^session_([0-9]{1,6})$`)
	sessionDTRE  = regexp.MustCompile(`^session_([0-9]{1,6})_date_time$`)
	diaIDRE      = regexp.MustCompile(`^D([0-9]{1,6}):([0-9]{1,6})$`)
)

// lineOf is the 1-based line of byte offset off in b.
func lineOf(b []byte, off int64) int {
	if off < 0 {
		return 0
	}
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return bytes.Count(b[:off], []byte{'\n'}) + 1
}

// parseLocomo reads the LoCoMo JSON in b (name is for messages).
func parseLocomo(name string, b []byte) ([]*locomoConv, error) {
	var raw []locomoSampleJSON
	if err := json.Unmarshal(b, &raw); err != nil {
		le := &LocomoError{Path: name, Msg: err.Error()}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			le.Line, le.Msg = lineOf(b, se.Offset), "invalid JSON: "+se.Error()
		case errors.As(err, &te):
			le.Line = lineOf(b, te.Offset)
			le.Msg = fmt.Sprintf("%s is a JSON %s, want %s", orTop(te.Field), te.Value, jsonKind(te.Type))
		}
		return nil, le
	}
	var out []*locomoConv
	seen := map[string]bool{}
	for i, s := range raw {
		id := strings.TrimSpace(s.SampleID)
		if id == "" {
			id = fmt.Sprintf("conv-%d", i+1)
		}
		if seen[id] {
			return nil, &LocomoError{Path: name, Msg: fmt.Sprintf("sample %d: duplicate sample_id %q", i+1, id)}
		}
		seen[id] = true
		c, err := parseLocomoConv(id, s)
		if err != nil {
			return nil, &LocomoError{Path: name, Msg: fmt.Sprintf("sample %q: %v", id, err)}
		}
		out = append(out, c)
	}
	return out, nil
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	}
	return "object"
}

func orTop(field string) string {
	if field == "" {
		return "the top level"
	}
	return field
}

func parseLocomoConv(id string, s locomoSampleJSON) (*locomoConv, error) {
	c := &locomoConv{ID: id}
	dates := map[int]string{}
	byN := map[int]*locomoSession{}
	for key, v := range s.Conversation {
		if m := sessionDTRE.FindStringSubmatch(key); m != nil {
			n, _ := strconv.Atoi(m[1])
			var d string
			if err := json.Unmarshal(v, &d); err != nil {
				return nil, fmt.Errorf("%s is not a string", key)
			}
			dates[n] = strings.TrimSpace(d)
			continue
		}
		m := sessionKeyRE.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		var turns []locomoTurn
		if err := json.Unmarshal(v, &turns); err != nil {
			return nil, fmt.Errorf("%s is not a list of turns: %v", key, err)
		}
		byN[n] = &locomoSession{N: n, Turns: turns}
	}
	for _, ss := range byN {
		c.Sessions = append(c.Sessions, *ss)
	}
	sort.Slice(c.Sessions, func(i, j int) bool { return c.Sessions[i].N < c.Sessions[j].N })
	// Dates: parsed when possible, else a day after the previous session.
	var prev time.Time
	turnIDs := map[string]bool{}
	for i := range c.Sessions {
		ss := &c.Sessions[i]
		ss.DateText = dates[ss.N]
		t, ok := parseLocomoDate(ss.DateText)
		if !ok {
			if prev.IsZero() {
				t = time.Date(2000, 1, 1, 12, 0, 0, 0, time.UTC)
			} else {
				t = prev.Add(24 * time.Hour)
			}
			c.Problems = append(c.Problems, fmt.Sprintf("%s session_%d: date %q not understood; using %s", id, ss.N, ss.DateText, t.Format("2006-01-02")))
		}
		ss.Time, prev = t, t
		for j := range ss.Turns {
			tu := &ss.Turns[j]
			if norm, ok := normalizeDiaID(tu.DiaID); ok {
				tu.DiaID = norm
			} else {
				gen := fmt.Sprintf("D%d:%d", ss.N, j+1)
				c.Problems = append(c.Problems, fmt.Sprintf("%s session_%d turn %d: dia_id %q replaced by %s", id, ss.N, j+1, tu.DiaID, gen))
				tu.DiaID = gen
			}
			turnIDs[tu.DiaID] = true
		}
	}
	for _, q := range s.QA {
		ev, dropped := parseEvidence(q.Evidence, turnIDs)
		c.Dropped += dropped
		if len(ev) == 0 {
			c.Skipped++
			continue
		}
		c.Questions = append(c.Questions, locomoQuestion{Question: q.Question, Category: q.Category, Evidence: ev})
	}
	return c, nil
}

// normalizeDiaID turns "D1:03" into "D1:3"; ok is false for anything that
// is not D<session>:<turn>.
func normalizeDiaID(s string) (string, bool) {
	m := diaIDRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", false
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return fmt.Sprintf("D%d:%d", a, b), true
}

// parseEvidence reads an evidence list (strings, possibly several ids in
// one string separated by ';', ',' or spaces) into distinct turn ids that
// exist in the conversation, counting the strings it had to drop.
func parseEvidence(raw json.RawMessage, exists map[string]bool) (ids []string, dropped int) {
	var items []any
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &items) != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil {
			return nil, 0
		}
		items = []any{one}
	}
	seen := map[string]bool{}
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			dropped++
			continue
		}
		parts := strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || unicode.IsSpace(r) })
		if len(parts) == 0 {
			dropped++
		}
		for _, p := range parts {
			id, ok := normalizeDiaID(p)
			if !ok || !exists[id] {
				dropped++
				continue
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids, dropped
}

var locomoDateLayouts = []string{
	"3:04 pm on 2 January, 2006", // month names match case-insensitively; "pm" needs lower case
	"3:04 pm on 2 Jan, 2006",
	"3:04 pm on January 2, 2006",
	"3:04pm on 2 January, 2006",
	"2 January, 2006",
	"2 January 2006",
	"January 2, 2006",
	"2006-01-02",
}

// parseLocomoDate reads a LoCoMo session time such as
// "1:56 pm on 8 May, 2023" (as UTC).
func parseLocomoDate(s string) (time.Time, bool) {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	if s == "" {
		return time.Time{}, false
	}
	for _, l := range locomoDateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// locomoDateText is the date of a session as words ("8 May 2023").
func locomoDateText(t time.Time) string { return t.Format("2 January 2006") }
