package layering

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/kbmem/kb/"

// The import order, top to bottom (docs/architecture.md). A package may
// import only packages of a lower rank; two packages of one rank do not
// import each other (agents and learn), except the faces (which call each
// other: kb eval is part of the CLI) and the leaves (internal packages use
// one another). Packages not yet written (recall, agents until it exists)
// have their place already.
var ranks = []struct {
	rank     int
	packages []string // a trailing "/..." names every package below a directory
}{
	{rankFace, []string{"cmd/kb", "cmd/kb-hook", "mcpserver", "eval", "examples", "bench/...", "internal/reliability"}},
	{7, []string{"kb"}},
	{6, []string{"team"}},
	{5, []string{"agents", "learn"}},
	{4, []string{"recall"}},
	{3, []string{"library"}},
	{2, []string{"episodes"}},
	{1, []string{"observations"}},
	{0, []string{"traces"}},
	{rankLeaf, []string{"templates", "internal/..."}},
}

const (
	rankFace = 8
	rankLeaf = -1
)

// cmdKBMay are all cmd/kb may import of this module: the facade and the
// other faces. Flags and output only; the rest goes through kb.
var cmdKBMay = []string{"kb", "mcpserver", "eval", "examples"}

// hookMay are all cmd/kb-hook may import of this module: it runs before
// every tool call of an agent, so it links agents and below, never the
// facade (bleve, go-git, cobra; ADR 0008).
var hookMay = []string{"agents"}

// rankOf is a package's rank (its path without the module prefix), and
// whether the order names it. internal/reliability, a suite of tests that
// drive the whole stack as a user would, is a face; every other internal
// package is a leaf.
func rankOf(pkg string) (int, bool) {
	best, bestLen, found := 0, -1, false
	for _, r := range ranks {
		for _, p := range r.packages {
			dir, all := strings.CutSuffix(p, "/...")
			if pkg == p || all && strings.HasPrefix(pkg, dir+"/") {
				if len(p) > bestLen { // the most specific entry wins
					best, bestLen, found = r.rank, len(p), true
				}
			}
		}
	}
	return best, found
}

// violation says what is wrong with from importing to, or "".
func violation(from, to string) string {
	rf, okf := rankOf(from)
	rt, okt := rankOf(to)
	switch {
	case !okf:
		return fmt.Sprintf("%s has no place in the import order (internal/layering)", from)
	case !okt:
		return fmt.Sprintf("%s imports %s, which has no place in the import order (internal/layering)", from, to)
	case from == "cmd/kb" && !slices.Contains(cmdKBMay, to):
		return fmt.Sprintf("cmd/kb imports %s: cmd/kb imports only %s (re-export through kb)", to, strings.Join(cmdKBMay, ", "))
	case from == "cmd/kb-hook" && !slices.Contains(hookMay, to):
		return fmt.Sprintf("cmd/kb-hook imports %s: the hook entry point imports only %s", to, strings.Join(hookMay, ", "))
	case rf == rankLeaf && rt != rankLeaf:
		return fmt.Sprintf("%s imports %s: an internal package imports no layer package", from, to)
	case rf == rankFace && rt == rankFace, rf == rankLeaf && rt == rankLeaf:
		return ""
	case rt >= rf:
		return fmt.Sprintf("%s imports %s, which is not below it", from, to)
	}
	return ""
}

type listed struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// goList returns the packages of the module with their imports, test
// imports included (a test may not reach up either).
func goList(t *testing.T) []listed {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,Error", "./...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	touchSources(t, "../..")
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportRule fails on any import that points up the order, on an
// internal package importing a layer package, and on cmd/kb importing a
// layer package; the message names each.
func TestImportRule(t *testing.T) {
	var bad []string
	for _, p := range goList(t) {
		from, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			continue
		}
		if p.Error != nil {
			bad = append(bad, fmt.Sprintf("%s: %s", from, p.Error.Err))
		}
		seen := map[string]bool{}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			to, ok := strings.CutPrefix(imp, module)
			if !ok || to == from || seen[to] {
				continue
			}
			seen[to] = true
			if v := violation(from, to); v != "" {
				bad = append(bad, v)
			}
		}
	}
	sort.Strings(bad)
	for _, b := range slices.Compact(bad) {
		t.Error(b)
	}
}

// TestRuleItself: the rule says what docs/architecture.md says.
func TestRuleItself(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"kb", "library", true},
		{"library", "episodes", true},
		{"episodes", "library", false},
		{"observations", "kb", false},
		{"traces", "observations", false},
		{"agents", "recall", true},
		{"learn", "recall", true},
		{"agents", "learn", false},
		{"learn", "agents", false},
		{"recall", "library", true},
		{"library", "recall", false},
		{"internal/index", "internal/fsx", true},
		{"internal/index", "traces", false},
		{"templates", "library", false},
		{"cmd/kb", "kb", true},
		{"cmd/kb", "eval", true},
		{"cmd/kb", "observations", false},
		{"cmd/kb", "internal/fsx", false},
		{"mcpserver", "kb", true},
		{"mcpserver", "observations", true},
		{"eval", "kb", true},
		{"bench/pipelinegen", "kb", true},
		{"kb", "mcpserver", false},
		{"internal/reliability", "kb", true},
		{"somewhere", "kb", false},
	} {
		if got := violation(c.from, c.to) == ""; got != c.ok {
			t.Errorf("%s -> %s: allowed %v, want %v (%s)", c.from, c.to, got, c.ok, violation(c.from, c.to))
		}
	}
}

// touchSources stats every Go file and reads every directory of the
// module, so that go test's cache, which records what a test opens, runs
// the test again when an import changes (go list, a child process, is not
// seen by it).
func touchSources(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			os.Stat(p)
		}
		return nil
	})
}

// TestArchitectureTable: the package table of docs/architecture.md names
// every package of the module with exactly the module packages it imports
// (internal/ written i/), so that the picture cannot drift from the code.
func TestArchitectureTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\|[^|]*\\|([^|]*)\\|$")
	tick := regexp.MustCompile("`([^`]+)`")
	doc := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		m := row.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		var imps []string
		for _, x := range tick.FindAllStringSubmatch(m[2], -1) {
			imps = append(imps, strings.Replace(x[1], "i/", "internal/", 1))
		}
		sort.Strings(imps)
		doc[m[1]] = imps
	}
	for _, p := range goList(t) {
		pkg, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			continue
		}
		var got []string
		for _, imp := range p.Imports {
			if to, ok := strings.CutPrefix(imp, module); ok {
				got = append(got, to)
			}
		}
		sort.Strings(got)
		want, ok := doc[pkg]
		if !ok {
			t.Errorf("docs/architecture.md: no row for %s (imports %s)", pkg, strings.Join(got, " "))
			continue
		}
		delete(doc, pkg)
		if !slices.Equal(got, want) {
			t.Errorf("docs/architecture.md: %s imports %v, the table says %v", pkg, got, want)
		}
	}
	for pkg := range doc {
		t.Errorf("docs/architecture.md: a row for %s, which is no package", pkg)
	}
}

// hookMustNotLink are the modules the hook entry point must not link,
// even through the packages it imports: their start-up is what made a
// hook slow (ADR 0008).
//
// Nor what a hook never calls: net/http (the model providers of
// internal/llm, which kb hands to recall through internal/llm/port) and
// crypto/tls with it.
var hookMustNotLink = []string{"github.com/blevesearch/", "github.com/go-git/", "github.com/spf13/cobra", "github.com/zricethezav/gitleaks",
	"github.com/yuin/goldmark", "github.com/kbmem/kb/internal/markdown",
	"net/http", "crypto/tls", "github.com/kbmem/kb/internal/llm"}

// hookMayLink are packages under one of hookMustNotLink that the hook
// may link: the port the providers are handed in through.
var hookMayLink = []string{"github.com/kbmem/kb/internal/llm/port"}

// linksDenied says whether package dep is bad of hookMustNotLink: what is
// under bad when it ends in "/", else bad or a package under it.
func linksDenied(dep, bad string) bool {
	if slices.Contains(hookMayLink, dep) {
		return false
	}
	if strings.HasSuffix(bad, "/") {
		return strings.HasPrefix(dep, bad)
	}
	return dep == bad || strings.HasPrefix(dep, bad+"/")
}

// TestHookEntryPointIsLight: cmd/kb-hook links none of hookMustNotLink.
func TestHookEntryPointIsLight(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-deps", "./cmd/kb-hook")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	touchSources(t, "../..")
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range hookMustNotLink {
			if linksDenied(dep, bad) {
				t.Errorf("cmd/kb-hook links %s", dep)
			}
		}
	}
}
