package recall

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/kbmem/kb/internal/textutil"
)

// Code families: the same thing written another way. A lesson prohibits
// the code it names ("take the fmt.Println out", "use r.Context(), not
// context.Background()"); an agent that writes a sibling of that code
// (fmt.Printf, context.TODO()) is doing what the lesson prohibits. Two
// sources: the format suffixes of a Go-style print or log call
// (formatVariants) and the families of codefamilies.txt (embedded).

//go:embed codefamilies.txt
var builtinCodeFamilies string

// codeFamilies maps each member of a family (its "()" trimmed) to the
// family's other members, as written. Parsed on first use: a hook that matches no
// signature pays nothing.
var codeFamilies = sync.OnceValue(func() map[string][]string { return parseCodeFamilies(builtinCodeFamilies) })

func parseCodeFamilies(text string) map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var members []string
		for _, f := range strings.Split(line, " | ") {
			if f = strings.TrimSpace(f); f != "" {
				members = append(members, f)
			}
		}
		for _, a := range members {
			for _, b := range members {
				if a != b {
					m[codeKey(a)] = append(m[codeKey(a)], b)
				}
			}
		}
	}
	return m
}

// codeKey is a member or a signature as the families are looked up by:
// trimmed, without a trailing "()".
func codeKey(s string) string {
	return strings.TrimSuffix(strings.TrimSpace(s), "()")
}

// siblings are the code that stands for the same thing as span: its
// format variants and its family's other members; nil for most spans.
func siblings(span string) []string {
	out := formatVariants(span)
	return append(out, codeFamilies()[codeKey(span)]...)
}

// formatVariants are the other members of a selector call's family of
// format suffixes ("fmt.Println" -> fmt.Print, fmt.Printf; "log.Fatalf" ->
// log.Fatal, log.Fatalln): one function written plain, with a format
// string, or with a newline, as Go's fmt and log packages and the loggers
// modelled on them name them. nil for anything else.
func formatVariants(span string) []string {
	span = strings.TrimSuffix(span, "()")
	i := strings.LastIndexByte(span, '.')
	if i <= 0 || i == len(span)-1 || strings.ContainsAny(span, " (") {
		return nil
	}
	sel, name := span[:i+1], span[i+1:]
	base := name
	for _, suf := range []string{"ln", "f"} {
		if strings.HasSuffix(name, suf) && len(name) > len(suf)+3 {
			base = strings.TrimSuffix(name, suf)
			break
		}
	}
	if len(base) < 4 || base[0] < 'A' || base[0] > 'Z' {
		return nil // exported Go names only: Print, Fatal, Debug
	}
	var out []string
	for _, v := range []string{base, base + "f", base + "ln"} {
		if v != name {
			out = append(out, sel+v)
		}
	}
	return out
}

// callIn reports whether code calls, or passes by name, the function a
// span writes as a call: "print()" is any call of print ("print(x)",
// ".unwrap(" for "unwrap()"), and "datetime.now()" is also the function
// passed by name ("default=datetime.now"). A dotted name called with
// arguments is not matched ("datetime.now(timezone.utc)" is what a lesson
// about naive datetimes advises); its empty call is (containsSpan).
func callIn(code, span string) bool {
	name, ok := strings.CutSuffix(span, "()")
	if !ok || name == "" || code == "" || strings.ContainsAny(name, " ()") {
		return false
	}
	dotted := strings.Contains(name, ".")
	for i := 0; ; {
		j := strings.Index(code[i:], name)
		if j < 0 {
			return false
		}
		j += i
		i = j + 1
		if j > 0 && (textutil.IdentByte(code[j-1]) || dotted && code[j-1] == '.') {
			continue
		}
		if j > 1 && code[j-2:j] == "#[" || j > 0 && code[j-1] == '@' {
			// #[expect(clippy::...)], @expect(...): an attribute or a
			// decorator, not a call.
			continue
		}
		k := j + len(name)
		if k == len(code) {
			if dotted {
				return true
			}
			continue
		}
		next := code[k]
		if next == '(' && !dotted || dotted && next != '(' && next != '.' && !textutil.IdentByte(next) {
			return true
		}
	}
}
