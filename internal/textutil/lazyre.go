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
	// hint, when set, is false for every string the expression cannot
	// match (see WithHint).
	hint func(string) bool
}

// WithHint sets a prefilter: hint(s) must be true for every s the
// expression matches, and may be true for others. The string methods
// answer "no match" at once where it is false. Go's regexp scans a wide
// alternation from every position of the input, so a scan of its bytes
// for what every match must hold (a colon before a digit, a backtick) is
// a hundred times cheaper on the many inputs that hold none. Test a hint
// with fuzzing (the regexp's own MatchString, through RE, implies it).
func (l *LazyRE) WithHint(hint func(string) bool) *LazyRE { l.hint = hint; return l }

// no reports whether the hint rules out a match in s.
func (l *LazyRE) no(s string) bool { return l.hint != nil && !l.hint(s) }

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

func (l *LazyRE) String() string            { l.RE(); return l.src }
func (l *LazyRE) MatchString(s string) bool { return !l.no(s) && l.RE().MatchString(s) }
func (l *LazyRE) Match(b []byte) bool       { return l.RE().Match(b) }
func (l *LazyRE) FindString(s string) string {
	if l.no(s) {
		return ""
	}
	return l.RE().FindString(s)
}
func (l *LazyRE) FindAllString(s string, n int) []string {
	if l.no(s) {
		return nil
	}
	return l.RE().FindAllString(s, n)
}
func (l *LazyRE) FindStringIndex(s string) []int {
	if l.no(s) {
		return nil
	}
	return l.RE().FindStringIndex(s)
}
func (l *LazyRE) FindAllStringIndex(s string, n int) [][]int {
	if l.no(s) {
		return nil
	}
	return l.RE().FindAllStringIndex(s, n)
}
func (l *LazyRE) FindStringSubmatch(s string) []string {
	if l.no(s) {
		return nil
	}
	return l.RE().FindStringSubmatch(s)
}
func (l *LazyRE) FindStringSubmatchIndex(s string) []int {
	if l.no(s) {
		return nil
	}
	return l.RE().FindStringSubmatchIndex(s)
}
func (l *LazyRE) FindAllStringSubmatch(s string, n int) [][]string {
	if l.no(s) {
		return nil
	}
	return l.RE().FindAllStringSubmatch(s, n)
}
func (l *LazyRE) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if l.no(s) {
		return nil
	}
	return l.RE().FindAllStringSubmatchIndex(s, n)
}
func (l *LazyRE) ReplaceAllString(s, repl string) string {
	if l.no(s) {
		return s
	}
	return l.RE().ReplaceAllString(s, repl)
}
func (l *LazyRE) ReplaceAllLiteralString(s, repl string) string {
	if l.no(s) {
		return s
	}
	return l.RE().ReplaceAllLiteralString(s, repl)
}
func (l *LazyRE) ReplaceAllStringFunc(s string, f func(string) string) string {
	if l.no(s) {
		return s
	}
	return l.RE().ReplaceAllStringFunc(s, f)
}
func (l *LazyRE) Split(s string, n int) []string {
	if l.no(s) && n != 0 {
		return []string{s}
	}
	return l.RE().Split(s, n)
}
func (l *LazyRE) SubexpIndex(name string) int { return l.RE().SubexpIndex(name) }
