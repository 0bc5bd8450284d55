package traces

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readHead(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, DetectHeadSize)
	n, _ := f.Read(buf)
	return buf[:n]
}

func TestDetectContent(t *testing.T) {
	cases := []struct {
		name, head, want string
	}{
		{"claude user", `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","sessionId":"s"}` + "\n", AgentClaudeCode},
		{"claude summary", `{"type":"summary","summary":"x","leafUuid":"l"}` + "\n", AgentClaudeCode},
		{"claude snapshot", `{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}` + "\n", AgentClaudeCode},
		{"claude queue", `{"type":"queue-operation","operation":"enqueue","timestamp":"t","sessionId":"s"}` + "\n", AgentClaudeCode},
		{"claude truncated first line", `{"type":"user","sessionId":"s","message":{"role":"user","content":"` + strings.Repeat("a", 100), AgentClaudeCode},
		{"codex", `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n", AgentCodex},
		{"codex legacy", `{"id":"x","timestamp":"t","instructions":null}` + "\n" + `{"record_type":"state"}` + "\n", AgentCodex},
		{"codex legacy state first", `{"record_type":"state"}` + "\n", AgentCodex},
		{"gemini json", "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": [\n    {\"id\": \"1\"", AgentGemini},
		{"gemini json one line", `{"sessionId":"s","projectHash":"h","startTime":"t","messages":[]}`, AgentGemini},
		{"gemini jsonl", `{"sessionId":"s","projectHash":"h","startTime":"t"}` + "\n" + `{"id":"1","timestamp":"t","type":"user","content":"hi"}` + "\n", AgentGemini},
		{"gemini jsonl set", `{"$set":{"summary":"x"}}` + "\n", AgentGemini},
		{"aider", "\n# aider chat started at 2024-08-05 10:00:00\n\n#### hi\n", AgentAider},
		{"aider truncated", "-*- mode: fundamental -*-\n> ok  \n\n#### fix it  \n\nsure\n", AgentAider},
		{"generic", `{"role":"user","content":"hi"}` + "\n" + `{"role":"assistant","content":"hello"}` + "\n", AgentGeneric},
		{"bom blank lines", "\xef\xbb\xbf\n\n" + `{"role":"system","content":"x"}` + "\n", AgentGeneric},
	}
	for _, c := range cases {
		p, err := Detect("f", []byte(c.head))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.Format() != c.want {
			t.Errorf("%s: detected %s, want %s", c.name, p.Format(), c.want)
		}
	}
}

func TestDetectUnknown(t *testing.T) {
	for name, head := range map[string]string{
		"empty":       "",
		"blank":       " \n\n",
		"png":         "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"random json": `{"foo":1,"bar":[1,2]}`,
		"json array":  `[1,2,3]`,
		"text":        "hello world\n",
		"meta.json":   `{"agentType":"general-purpose","description":"x"}`,
	} {
		p, err := Detect("/x/"+name, []byte(head))
		if err == nil {
			t.Errorf("%s: detected %s", name, p.Format())
			continue
		}
		var fe *FormatError
		if !errors.Is(err, ErrUnknownFormat) || !errors.As(err, &fe) || fe.File != "/x/"+name || !strings.Contains(err.Error(), "/x/"+name) {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

func TestDetectFixtures(t *testing.T) {
	for path, want := range map[string]string{
		ccFixtureMain:   AgentClaudeCode,
		cxFixture:       AgentCodex,
		cxLegacyFixture: AgentCodex,
		filepath.Join(ccFixtureDir, "agent-9f8e7d6c.jsonl"): AgentClaudeCode,
	} {
		p, err := Detect(path, readHead(t, path))
		if err != nil || p.Format() != want {
			t.Errorf("%s: %v %v", path, p, err)
		}
	}
}

// TestDetectReal detects every non-empty real transcript correctly.
func TestDetectReal(t *testing.T) {
	root := sharedTranscripts(t)
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") && filepath.Dir(path) == root {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		want := strings.SplitN(rel, string(filepath.Separator), 2)[0]
		head := readHead(t, path)
		p, err := Detect(path, head)
		switch {
		case strings.HasSuffix(path, ".meta.json") || len(head) == 0:
			if !errors.Is(err, ErrUnknownFormat) {
				t.Errorf("%s: want ErrUnknownFormat, got %v", rel, err)
			}
		case err != nil:
			t.Errorf("%s: %v", rel, err)
		case p.Format() != want:
			t.Errorf("%s: detected %s, want %s", rel, p.Format(), want)
		default:
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files detected", n)
}

func TestParserFor(t *testing.T) {
	for _, f := range []string{AgentClaudeCode, AgentCodex, AgentAider, AgentGemini, AgentGeneric} {
		p, err := ParserFor(f)
		if err != nil || p.Format() != f {
			t.Errorf("%s: %v %v", f, p, err)
		}
	}
	if _, err := ParserFor("cursor"); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("unknown format error: %v", err)
	}
}

func FuzzDetect(f *testing.F) {
	for _, p := range []string{ccFixtureMain, cxFixture, cxLegacyFixture} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
			f.Add(data[:len(data)/3])
		}
	}
	f.Add([]byte("# aider chat started at x\n"))
	f.Add([]byte(`{"sessionId":"s","messages":[`))
	f.Add([]byte("{\"a\":{\"b\":[[[[\n"))
	f.Add([]byte("\x89PNG\r\n"))
	f.Fuzz(func(t *testing.T, head []byte) {
		p, err := Detect("fuzz", head)
		if (p == nil) == (err == nil) {
			t.Fatalf("parser %v, err %v", p, err)
		}
		if err != nil && !errors.Is(err, ErrUnknownFormat) {
			t.Fatalf("error %v does not wrap ErrUnknownFormat", err)
		}
	})
}

// TestDetectReaderLongFirstLine: a first record over DetectHeadSize whose
// telling keys come after its long value is read whole and recognised; a
// file whose first line is cut off for good is still judged from what
// there is.
func TestDetectReaderLongFirstLine(t *testing.T) {
	long := strings.Repeat("pasted text ", 80<<10/12)
	first := `{"type":"queue-operation","operation":"enqueue","timestamp":"2025-11-17T09:59:00Z","content":"` + long + `","sessionId":"s-1"}`
	data := first + "\n" + `{"type":"user","sessionId":"s-1","uuid":"u1","message":{"role":"user","content":"hi"}}` + "\n"
	if _, err := Detect("x.jsonl", []byte(data[:DetectHeadSize])); err == nil {
		t.Fatal("the 64 KB head alone decides: the test needs a longer line")
	}
	p, head, err := DetectReader("x.jsonl", strings.NewReader(data))
	if err != nil || p.Format() != AgentClaudeCode {
		t.Fatalf("DetectReader: %v %v", p, err)
	}
	if !strings.HasPrefix(data, string(head)) || len(head) <= len(first) {
		t.Errorf("head of %d bytes, want the first line and more", len(head))
	}
	// Short files and decided heads read no further than DetectHeadSize.
	if _, head, err := DetectReader("y.jsonl", strings.NewReader(data[len(first)+1:])); err != nil || len(head) != len(data)-len(first)-1 {
		t.Errorf("short file: %d bytes, %v", len(head), err)
	}
	// Not JSON at all: decided at once, without reading the rest.
	if _, head, err := DetectReader("z.jsonl", strings.NewReader(strings.Repeat("A", 1<<20))); !errors.Is(err, ErrUnknownFormat) || len(head) != DetectHeadSize {
		t.Errorf("non-JSON: %d bytes, %v", len(head), err)
	}
}

func FuzzDetectReader(f *testing.F) {
	f.Add([]byte(`{"type":"queue-operation","content":"` + strings.Repeat("x", DetectHeadSize) + `","sessionId":"s"}` + "\n"))
	f.Add([]byte(`{"a":"` + strings.Repeat("y", DetectHeadSize)))
	f.Add([]byte("\n\n  " + strings.Repeat(" ", DetectHeadSize) + "{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, head, err := DetectReader("fuzz", bytes.NewReader(data))
		if (p == nil) == (err == nil) {
			t.Fatalf("parser %v, err %v", p, err)
		}
		if !bytes.HasPrefix(data, head) {
			t.Fatalf("head is not a prefix of the file")
		}
	})
}
