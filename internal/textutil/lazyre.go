package textutil

import (
	"regexp"
	"sync"
)

// LazyRE is a package-level regular expression compiled on first use.
// kb's packages hold over a hundred of them; compiled at program start
// they cost every kb process milliseconds (a hook, which uses a few, most
// of its start), so they are declared with Lazy instead of
// regexp.MustCompile. A bad expression panics on first use, which the
// package's tests reach.
type LazyRE struct {
	src  string
	make func() string // the source, when it is made on first use too
	once sync.Once
	re   *regexp.Regexp
}

// Lazy is the regular expression src, compiled when first used.
func Lazy(src string) *LazyRE { return &LazyRE{src: src} }

// LazyOf is the regular expression src returns, made and compiled when
// first used (a translated glob: translating a table of them is work a
// process that matches none of them need not do).
func LazyOf(src func() string) *LazyRE { return &LazyRE{make: src} }

// RE is the compiled expression.
func (l *LazyRE) RE() *regexp.Regexp {
	l.once.Do(func() {
		if l.make != nil {
			l.src = l.make()
		}
		l.re = regexp.MustCompile(l.src)
	})
	return l.re
}

func (l *LazyRE) String() string                         { l.RE(); return l.src }
func (l *LazyRE) MatchString(s string) bool              { return l.RE().MatchString(s) }
func (l *LazyRE) Match(b []byte) bool                    { return l.RE().Match(b) }
func (l *LazyRE) FindString(s string) string             { return l.RE().FindString(s) }
func (l *LazyRE) FindAllString(s string, n int) []string { return l.RE().FindAllString(s, n) }
func (l *LazyRE) FindStringIndex(s string) []int         { return l.RE().FindStringIndex(s) }
func (l *LazyRE) FindAllStringIndex(s string, n int) [][]int {
	return l.RE().FindAllStringIndex(s, n)
}
func (l *LazyRE) FindStringSubmatch(s string) []string   { return l.RE().FindStringSubmatch(s) }
func (l *LazyRE) FindStringSubmatchIndex(s string) []int { return l.RE().FindStringSubmatchIndex(s) }
func (l *LazyRE) FindAllStringSubmatch(s string, n int) [][]string {
	return l.RE().FindAllStringSubmatch(s, n)
}
func (l *LazyRE) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.RE().FindAllStringSubmatchIndex(s, n)
}
func (l *LazyRE) ReplaceAllString(s, repl string) string { return l.RE().ReplaceAllString(s, repl) }
func (l *LazyRE) ReplaceAllLiteralString(s, repl string) string {
	return l.RE().ReplaceAllLiteralString(s, repl)
}
func (l *LazyRE) ReplaceAllStringFunc(s string, f func(string) string) string {
	return l.RE().ReplaceAllStringFunc(s, f)
}
func (l *LazyRE) Split(s string, n int) []string { return l.RE().Split(s, n) }
func (l *LazyRE) SubexpIndex(name string) int    { return l.RE().SubexpIndex(name) }
