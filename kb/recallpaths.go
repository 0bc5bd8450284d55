package kb

import (
	"path"
	"regexp"
	"strings"
)

// A file path is a poor bag of words: every file of a project shares its
// directories ("/Users/me/workspace/shop/..."), so counting them as shared
// words made a lesson about one file of the project fire on every other
// file of it. Recall reads a path as its file name instead: the name's
// words count as words, and the same file named on both sides is a cue of
// its own.

// filePathRE matches a path with at least one slash, or a bare file name with
// a short extension.
var filePathRE = regexp.MustCompile(`(?:~|\.{1,2})?/?(?:[\w@+.-]+/)+[\w@+.-]*|\b[\w-]+\.[a-zA-Z][a-zA-Z0-9]{0,4}\b`)

// fileRef is a file a cue or a candidate names: its base name (lower case,
// with its extension) and its parent directory's name, if given.
type fileRef struct{ base, parent string }

// genericBase are file names that many directories hold: the same name is
// no evidence of the same file.
var genericBase = map[string]bool{"index.js": true, "index.ts": true, "index.tsx": true, "index.html": true,
	"__init__.py": true, "main.go": true, "main.py": true, "main.rs": true, "mod.rs": true, "lib.rs": true}

// reducePaths replaces every path in s by its file name without the
// extension, and returns the files named. Dotted identifiers that are not
// file names ("process.env", "e.g") are left as text unless they contain a
// slash or end in an extension-like word of at most five characters; their
// words then survive as the name's words.
func reducePaths(s string) (string, []fileRef) {
	var files []fileRef
	out := filePathRE.ReplaceAllStringFunc(s, func(m string) string {
		p := strings.TrimRight(m, "/.")
		base := path.Base(p)
		if base == "." || base == "/" || base == "" {
			return " "
		}
		parent := ""
		if d := path.Dir(p); d != "." && d != "/" {
			parent = strings.ToLower(path.Base(d))
		}
		ext := path.Ext(base)
		stem := strings.TrimSuffix(base, ext)
		if !strings.Contains(m, "/") && (len(ext) < 3 || len(stem) < 2) {
			return m // "e.g", "x.y": not a file name
		}
		if ext != "" && stem != "" {
			files = append(files, fileRef{base: strings.ToLower(base), parent: parent})
		} else if !strings.Contains(m, "/") {
			return m // "e.g", "v1.2": not a file
		}
		if stem == "" {
			stem = base // ".env", ".gitignore"
		}
		return " " + stem + " "
	})
	return out, files
}

// sameFile returns a file both lists name, or "": the same base name,
// not a generic one, in the same parent directory when both say which.
func sameFile(a, b []fileRef) string {
	for _, x := range a {
		if genericBase[x.base] {
			continue
		}
		for _, y := range b {
			if x.base == y.base && (x.parent == "" || y.parent == "" || x.parent == y.parent) {
				return x.base
			}
		}
	}
	return ""
}

// inProject reports whether dir is one of the projects (the same
// directory, inside it, or holding it), or has the same name as one: a KB
// shared through git sees one project under several people's paths.
func inProject(projects []string, dir string) bool {
	dir = path.Clean(filepathToSlash(dir))
	for _, p := range projects {
		p = path.Clean(filepathToSlash(p))
		if p == dir || strings.HasPrefix(dir, p+"/") || strings.HasPrefix(p, dir+"/") ||
			strings.EqualFold(path.Base(p), path.Base(dir)) {
			return true
		}
	}
	return false
}

func filepathToSlash(s string) string { return strings.ReplaceAll(s, "\\", "/") }
