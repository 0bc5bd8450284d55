package recall

import (
	"path"
	"strings"
)

// A file path is a poor bag of words: every file of a project shares its
// directories ("/Users/me/workspace/shop/..."), so counting them as shared
// words made a lesson about one file of the project fire on every other
// file of it. Recall reads a path as its file name instead: the name's
// words count as words, and the same file named on both sides is a cue of
// its own.

// fileRef is a file a cue or a candidate names: its base name (lower case,
// with its extension) and the names of its parent directory and the one
// above it, if given ("netmiko/prompts").
type fileRef struct{ base, parent string }

// genericBase are file names that many directories hold: the same name is
// no evidence of the same file.
var genericBase = map[string]bool{"index.js": true, "index.ts": true, "index.tsx": true, "index.html": true,
	"__init__.py": true, "main.go": true, "main.py": true, "main.rs": true, "mod.rs": true, "lib.rs": true}

// reducePaths replaces every path in s by its file name without the
// extension, and returns the files named. A path is a run of path
// characters holding a slash ("/home/me/shop/api/rates.go", "docs/",
// "./x"), or a bare file name with a short extension ("rates.go"); dotted
// words that are not file names ("e.g", "v1.2", "process.env.API_KEY")
// and URLs stay text. A hand scanner: recall runs it on every candidate of every
// hook.
func reducePaths(s string) (string, []fileRef) {
	if !strings.ContainsAny(s, "/.") {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	var files []fileRef
	for i := 0; i < len(s); {
		if !isPathByte(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && isPathByte(s[j]) {
			j++
		}
		tok := s[i:j]
		core := strings.TrimRight(tok, ".-")
		if strings.HasPrefix(tok, "//") && i > 0 && s[i-1] == ':' {
			// A URL (https://host/a/page.html) names a page, not a file
			// of the project.
			b.WriteString(tok)
			i = j
			continue
		}
		if core == "" {
			b.WriteString(tok)
		} else {
			b.WriteString(reduceToken(core, &files))
			b.WriteString(tok[len(core):])
		}
		i = j
	}
	return b.String(), files
}

func isPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '/' || c == '@' || c == '+' || c == '~' || c == '*'
}

// reduceToken is one path-like token as reducePaths writes it.
func reduceToken(tok string, files *[]fileRef) string {
	slash := strings.Contains(tok, "/")
	p := strings.TrimRight(tok, "/")
	for strings.Trim(path.Base(p), "*") == "" && strings.Contains(p, "/") {
		p = path.Dir(p) // "release/*", "src/**": the directory is the name
	}
	base := path.Base(p)
	if p == "" || base == "." || base == ".." || base == "~" {
		if slash {
			return " "
		}
		return tok
	}
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	// A bare name needs a short extension ("rates.go", not
	// "django.contrib"); in a path a longer one is a file too
	// ("bff/schema.graphql", "services/x/gradle.lockfile").
	maxExt := 6
	if slash {
		maxExt = 10
	}
	isExt := len(ext) >= 3 && len(ext) <= maxExt && isLetter(ext[1]) && stem != ""
	if !slash {
		if !isExt || len(stem) < 2 {
			return tok // "e.g", "v1.2", "process.env.API_KEY": not a file name
		}
	}
	if isExt {
		parent := ""
		if d := path.Dir(p); d != "." && d != "/" {
			parent = strings.ToLower(path.Base(d))
			if g := path.Dir(d); g != "." && g != "/" && path.Base(g) != ".." && path.Base(g) != "~" {
				parent = strings.ToLower(path.Base(g)) + "/" + parent
			}
		}
		*files = append(*files, fileRef{base: strings.ToLower(base), parent: parent})
	} else {
		stem = base // "docs/", ".env", "Makefile"
	}
	return " " + stem + " "
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// sameFile returns a file both lists name, or "": the same base name,
// not a generic one, in the same parent directory when both say which.
func sameFile(a, b []fileRef) string {
	for _, x := range a {
		if genericBase[x.base] {
			continue
		}
		glob := strings.Contains(x.base, "*") && (x.parent != "" && !strings.Contains(x.parent, "*") || len(strings.ReplaceAll(x.base, "*", "")) >= 5)
		for _, y := range b {
			if x.base == y.base && sameDir(x.parent, y.parent) {
				return x.base
			}
			if glob && (x.parent == "" || y.parent != "" && sameDir(x.parent, y.parent)) {
				// "config/locales/*.yml": a file the glob matches, by
				// its own name (a lesson that leaves one out, "except
				// en.yml", is read by advisedFile).
				if ok, _ := path.Match(x.base, y.base); ok {
					return y.base
				}
			}
		}
	}
	return ""
}

// sameDir reports whether two parents of the same file name can be the
// same directory: one is unknown, or one ends the other ("prompts" and
// "netmiko/prompts"); "netmiko/prompts" and "infrahub/prompts" are two
// modules' files.
func sameDir(a, b string) bool {
	if a == "" || b == "" || a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return strings.HasSuffix(b, "/"+a)
}

// inProject reports whether dir is one of the projects (the same
// directory, inside it, or holding it), or has the same name as one: a KB
// shared through git sees one project under several people's paths.
func inProject(projects []string, dir string) bool {
	dir = path.Clean(slashed(dir))
	for _, p := range projects {
		p = path.Clean(slashed(p))
		if p == dir || strings.HasPrefix(dir, p+"/") || strings.HasPrefix(p, dir+"/") ||
			strings.EqualFold(path.Base(p), path.Base(dir)) {
			return true
		}
	}
	return false
}

// slashed writes a path recorded on any system (C:\src\shop) with slashes;
// filepath.ToSlash only converts this system's separator.
func slashed(s string) string { return strings.ReplaceAll(s, "\\", "/") }

// withoutFileNames is text, as reducePaths left it, less the names of
// files (their stems, which reducePaths wrote in place of the paths).
func withoutFileNames(text string, files []fileRef) string {
	if len(files) == 0 {
		return text
	}
	fields := strings.Fields(text)
	kept := fields[:0]
	for _, f := range fields {
		w := strings.Trim(f, "`'\".,;:()[]")
		named := false
		for _, r := range files {
			if w != "" && strings.EqualFold(w, strings.TrimSuffix(r.base, path.Ext(r.base))) {
				named = true
				break
			}
		}
		if !named {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}
