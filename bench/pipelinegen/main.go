// Command pipelinegen writes the synthetic inputs of bench/pipeline.sh:
//
//	pipelinegen big -src DIR -mb N -out FILE      Claude Code JSONL of about N MB: the real
//	                                              transcripts under DIR concatenated, copy k
//	                                              with every sessionId rewritten (distinct sessions)
//	pipelinegen bigmsg -src DIR -mb N -out FILE   one Claude Code session (the first transcript
//	  [-kind user|tool] [-secret TOKEN]           under DIR of 20 KB or more) with one message of
//	  [-text real|line|words|base64]              about N MB inserted after its first prompt: the
//	                                              real texts of every transcript under DIR, one a
//	                                              line, repeated (or those on one line, random
//	                                              words, base64); a person's prompt (user) or a
//	                                              tool result (tool); TOKEN, if given, is written
//	                                              4 KB before the message's end
//	pipelinegen sessions -src FILE -n N -out DIR  N small Claude Code session files, the first
//	                                              lines of FILE, each with its own sessionId
//	pipelinegen obs -n N -kb DIR                  N observation files of varied types, action
//	                                              types and lessons under DIR/observations/
//	pipelinegen pct -q P FILE...                  percentile P (0-100) of hyperfine --export-json
//	                                              times, in ms
//	pipelinegen session -n N -out FILE            one generic-JSONL session of N chat records
//	                                              (for kb import --format generic)
//	pipelinegen note -kind K -kb N -out FILE      a library note of about N KB: K = huge (prose
//	                                              paragraphs), or one line of openers: lists
//	                                              ("- 1. "), olist ("1. "), quotes ("> "),
//	                                              links ("[a]("), wiki ("[")
//
// Output is deterministic for the same arguments.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kbmem/kb/kb"
	"github.com/kbmem/kb/observations"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: pipelinegen big|sessions|obs|pct|session|note ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "big":
		err = big(os.Args[2:])
	case "bigmsg":
		err = bigmsg(os.Args[2:])
	case "sessions":
		err = sessions(os.Args[2:])
	case "obs":
		err = obs(os.Args[2:])
	case "pct":
		err = pct(os.Args[2:])
	case "session":
		err = session(os.Args[2:])
	case "note":
		err = note(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipelinegen:", err)
		os.Exit(1)
	}
}

var sidRe = regexp.MustCompile(`"sessionId":"[^"]*"`)

// rewrite gives every sessionId of line a per-copy suffix.
func rewrite(line []byte, copyN int) []byte {
	return sidRe.ReplaceAllFunc(line, func(m []byte) []byte {
		return []byte(fmt.Sprintf(`%s-c%05d"`, m[:len(m)-1], copyN))
	})
}

func big(args []string) error {
	fl := flag.NewFlagSet("big", flag.ContinueOnError)
	src := fl.String("src", "", "directory of Claude Code transcripts")
	mb := fl.Int("mb", 50, "target size in MB")
	out := fl.String("out", "", "output file")
	if err := fl.Parse(args); err != nil {
		return err
	}
	files, err := transcriptFiles(*src)
	if err != nil {
		return err
	}
	var data [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		data = append(data, b)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	target := int64(*mb) << 20
	var n int64
	for c := 0; n < target; c++ {
		for _, b := range data {
			for line := range bytes.Lines(b) {
				l := rewrite(line, c)
				w.Write(l)
				n += int64(len(l))
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// transcriptFiles lists the *.jsonl files under dir, sorted.
func transcriptFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no .jsonl under %s: %v", dir, err)
	}
	sort.Strings(files)
	return files, nil
}

// messageTexts returns the strings of 20 bytes or more inside the messages
// of a Claude Code transcript (prompts, answers, thinking, tool input and
// results; signatures left out), in file order.
func messageTexts(b []byte) []string {
	var out []string
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch v := v.(type) {
		case string:
			if len(v) >= 20 && key != "signature" && key != "id" && key != "tool_use_id" {
				out = append(out, v)
			}
		case []any:
			for _, e := range v {
				walk(e, key)
			}
		case map[string]any:
			for k, e := range v {
				walk(e, k)
			}
		}
	}
	for line := range bytes.Lines(b) {
		var rec struct {
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(line, &rec) != nil || len(rec.Message) == 0 {
			continue
		}
		var m any
		if json.Unmarshal(rec.Message, &m) == nil {
			// Map order is random: walk content in order, the rest sorted.
			if mm, ok := m.(map[string]any); ok {
				keys := make([]string, 0, len(mm))
				for k := range mm {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					walk(mm[k], k)
				}
			}
		}
	}
	return out
}

// bigmsg writes one real session with one message of about -mb MB.
func bigmsg(args []string) error {
	fl := flag.NewFlagSet("bigmsg", flag.ContinueOnError)
	src := fl.String("src", "", "directory of Claude Code transcripts")
	mb := fl.Int("mb", 50, "size of the message in MB")
	kind := fl.String("kind", "user", "user (a prompt) or tool (a tool result)")
	secret := fl.String("secret", "", "a token written 4 KB before the end of the message")
	text := fl.String("text", "real", "real (the transcripts' texts, one a line), line (the same on one line), words (random words, one line) or base64 (random bytes, one line)")
	out := fl.String("out", "", "output file")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *kind != "user" && *kind != "tool" {
		return fmt.Errorf("bigmsg: -kind is user or tool, not %q", *kind)
	}
	if !slices.Contains([]string{"real", "line", "words", "base64"}, *text) {
		return fmt.Errorf("bigmsg: -text is real, line, words or base64, not %q", *text)
	}
	files, err := transcriptFiles(*src)
	if err != nil {
		return err
	}
	var texts []string
	var host []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if host == nil && len(b) >= 20<<10 {
			host = b
		}
		texts = append(texts, messageTexts(b)...)
	}
	if host == nil || len(texts) == 0 {
		return fmt.Errorf("bigmsg: no transcript of 20 KB or more under %s", *src)
	}
	target := *mb << 20
	var body strings.Builder
	body.Grow(target + 1<<16)
	planted := *secret == ""
	ws := benchWords()
	r := rand.New(rand.NewPCG(3, 4))
	raw := make([]byte, 3<<10)
	for i := 0; body.Len() < target; i++ {
		if !planted && body.Len() >= target-4096 {
			body.WriteString(" export TOKEN=" + *secret + " \n")
			planted = true
		}
		switch *text {
		case "real":
			body.WriteString(texts[i%len(texts)])
			body.WriteByte('\n')
		case "line":
			body.WriteString(strings.ReplaceAll(texts[i%len(texts)], "\n", " "))
			body.WriteByte(' ')
		case "words":
			body.WriteString(ws[r.IntN(len(ws))])
			body.WriteByte(' ')
		case "base64":
			for j := range raw {
				raw[j] = byte(r.Uint32())
			}
			body.WriteString(base64.StdEncoding.EncodeToString(raw))
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	done := false
	for line := range bytes.Lines(host) {
		w.Write(line)
		if done {
			continue
		}
		var rec map[string]any
		if json.Unmarshal(line, &rec) != nil || rec["type"] != "user" {
			continue
		}
		m, _ := rec["message"].(map[string]any)
		if m == nil {
			continue
		}
		if _, ok := m["content"].(string); !ok {
			continue
		}
		done = true
		parent, _ := rec["uuid"].(string)
		rec["parentUuid"] = parent
		rec["uuid"] = "b16b16b1-6b16-4b16-8b16-b16b16b16b16"
		if *kind == "user" {
			rec["message"] = map[string]any{"role": "user", "content": body.String()}
		} else {
			rec["message"] = map[string]any{"role": "user", "content": []any{map[string]any{
				"type": "tool_result", "tool_use_id": "toolu_bigmsg", "content": body.String()}}}
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if !done {
		return fmt.Errorf("bigmsg: no prompt in the host transcript")
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func sessions(args []string) error {
	fl := flag.NewFlagSet("sessions", flag.ContinueOnError)
	src := fl.String("src", "", "a Claude Code transcript")
	n := fl.Int("n", 1000, "number of sessions")
	lines := fl.Int("lines", 20, "lines per session")
	out := fl.String("out", "", "output directory")
	if err := fl.Parse(args); err != nil {
		return err
	}
	b, err := os.ReadFile(*src)
	if err != nil {
		return err
	}
	var head [][]byte
	for line := range bytes.Lines(b) {
		if len(head) == *lines {
			break
		}
		head = append(head, line)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for i := range *n {
		var buf bytes.Buffer
		for _, l := range head {
			buf.Write(rewrite(l, i))
		}
		name := filepath.Join(*out, fmt.Sprintf("%08d-0000-4000-8000-%012d.jsonl", i, i))
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func obs(args []string) error {
	fl := flag.NewFlagSet("obs", flag.ContinueOnError)
	n := fl.Int("n", 10000, "number of observations")
	root := fl.String("kb", "", "KB root")
	if err := fl.Parse(args); err != nil {
		return err
	}
	actions := observations.Default().Types()
	words := strings.Fields("alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega ledger rates importer client store balance account payment invoice migration cache schema retry deploy lint fixture")
	types := []string{observations.TypeCorrection, observations.TypePreference, observations.TypeProcedure,
		observations.TypeDecision, observations.TypeNegativeResult, observations.TypeDiscovery, observations.TypeQuestion}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := func(i int) string { return words[i%len(words)] }
	for i := range *n {
		typ := types[i%len(types)]
		at := actions[(i/len(types))%len(actions)] // every action type, in turn, on the corrections
		o := &observations.Observation{Type: typ, Title: fmt.Sprintf("%s %s of %s %d", w(i), w(i*3), w(i*5), i%97),
			Status: observations.StatusCandidate, Importance: float64(i%10) / 10, Confidence: 0.5,
			FirstSeen: t0.Add(time.Duration(i) * time.Minute), LastSeen: t0.Add(time.Duration(i) * time.Minute)}
		o.Sources = []observations.SourceRef{{Session: fmt.Sprintf("s%d", i%2000), From: 1, To: 3, Time: o.FirstSeen}}
		if i%50 == 0 { // recurs and graduates
			o.Sources = append(o.Sources, observations.SourceRef{Session: fmt.Sprintf("s%d", (i+1)%2000), From: 1, To: 2},
				observations.SourceRef{Session: fmt.Sprintf("s%d", (i+2)%2000), From: 1, To: 2})
			o.Accepts, o.Importance = 5, 0.9
		}
		o.Sessions = len(o.Sources)
		switch typ {
		case observations.TypeCorrection:
			o.Trigger = "doing " + at + " on the " + w(i) + " " + w(i*11)
			o.ActionType, o.ActionTypes = at, []string{at}
			o.Lesson = fmt.Sprintf("When touching the %s %s, run the %s check first (%d).", w(i*7), w(i*3), w(i*13), i)
			o.Signals = []string{observations.SignalExplicitCorrection}
		case observations.TypePreference:
			o.Domain, o.Statement = w(i*2), fmt.Sprintf("Prefer %s over %s for the %s.", w(i), w(i+5), w(i*17))
		case observations.TypeProcedure:
			o.Goal = "release the " + w(i)
			o.Steps = []string{"Edit " + w(i) + ".go", fmt.Sprintf("Bash: make %s-%d", w(i*3), i), "Bash: go test ./..."}
		case observations.TypeDecision:
			o.Question, o.Chosen = "Which "+w(i)+" store?", w(i*19)
			o.Reasons = []string{"faster " + w(i*23), "simpler"}
		case observations.TypeNegativeResult:
			o.Approach, o.Failure = "retrying the "+w(i)+" call", "still fails with a timeout on "+w(i*29)
		case observations.TypeDiscovery:
			o.Claim = fmt.Sprintf("The %s %s lives in %s/%d.", w(i), w(i*31), w(i*37), i%41)
		case observations.TypeQuestion:
			o.Question = fmt.Sprintf("Why does the %s %s drift?", w(i), w(i*43))
		}
		o.Description = o.Title
		id := o.MakeID() // "cor-<hash>": keep the type prefix, make it unique
		if j := strings.IndexByte(id, '-'); j > 0 {
			id = id[:j]
		}
		o.ID = fmt.Sprintf("%s-bench-%05d", id, i)
		out, err := kb.RenderObservation(o)
		if err != nil {
			return fmt.Errorf("observation %d: %w", i, err)
		}
		p := filepath.Join(*root, filepath.FromSlash(kb.ObservationPath(o.Type, o.ID)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, out, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func pct(args []string) error {
	fl := flag.NewFlagSet("pct", flag.ContinueOnError)
	q := fl.Float64("q", 50, "percentile")
	if err := fl.Parse(args); err != nil {
		return err
	}
	var all []float64
	for _, f := range fl.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var r struct {
			Results []struct {
				Times []float64 `json:"times"`
			} `json:"results"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for _, x := range r.Results {
			all = append(all, x.Times...)
		}
	}
	if len(all) == 0 {
		return fmt.Errorf("no times")
	}
	slices.Sort(all)
	// nearest rank
	i := int(math.Ceil(*q/100*float64(len(all)))) - 1
	i = max(0, min(i, len(all)-1))
	fmt.Printf("%.2f\n", all[i]*1000)
	return nil
}

// benchWords is the vocabulary of session and note: a few real words and
// 5,000 made-up ones, so that terms have a long tail.
func benchWords() []string {
	ws := strings.Fields("index search migration column database commit push branch test failure retry network timeout " +
		"parser token query schema rebuild segment batch memory budget hook prompt session trace record")
	for i := range 5000 {
		ws = append(ws, fmt.Sprintf("w%04d", i))
	}
	return ws
}

func session(args []string) error {
	fl := flag.NewFlagSet("session", flag.ContinueOnError)
	n := fl.Int("n", 1000000, "number of records")
	id := fl.String("id", "big-session", "session id")
	out := fl.String("out", "", "output file")
	if err := fl.Parse(args); err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	ws := benchWords()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range *n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		k := 8 + r.IntN(53)
		text := make([]string, k)
		for j := range text {
			text[j] = ws[r.IntN(len(ws))]
		}
		b, _ := json.Marshal(map[string]any{"session": *id, "role": role, "content": strings.Join(text, " "), "timestamp": 1700000000 + i})
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func note(args []string) error {
	fl := flag.NewFlagSet("note", flag.ContinueOnError)
	kind := fl.String("kind", "huge", "huge, lists, olist, quotes, links or wiki")
	kb := fl.Int("kb", 400, "size in KB")
	out := fl.String("out", "", "output file")
	if err := fl.Parse(args); err != nil {
		return err
	}
	units := map[string]string{"lists": "- 1. ", "olist": "1. ", "quotes": "> ", "links": "[a](", "wiki": "["}
	var b strings.Builder
	b.WriteString("---\ntitle: " + *kind + "\ntype: reference\n---\nSee [[other-note]] and [a link](other.md).\n\n")
	size := *kb * 1000
	switch u, ok := units[*kind]; {
	case *kind == "huge":
		ws := benchWords()
		r := rand.New(rand.NewPCG(2, 3))
		for b.Len() < size {
			for i := range 80 {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(ws[r.IntN(len(ws))])
			}
			b.WriteString("\n\n")
		}
	case ok:
		b.WriteString(strings.Repeat(u, size/len(u)))
		b.WriteByte('\n')
	default:
		return fmt.Errorf("unknown note kind %q", *kind)
	}
	return os.WriteFile(*out, []byte(b.String()), 0o644)
}
