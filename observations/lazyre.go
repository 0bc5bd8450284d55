package observations

import (
	"regexp"
	"sync"
)

// lazyRE is a package-level regular expression compiled on first use.
// The extractors hold dozens of them; compiling them at program start cost
// every kb process (search, hooks) about 10 ms, though most never extract.
type lazyRE struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazyRegexp(src string) *lazyRE { return &lazyRE{src: src} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRE) MatchString(s string) bool              { return l.get().MatchString(s) }
func (l *lazyRE) FindString(s string) string             { return l.get().FindString(s) }
func (l *lazyRE) FindAllString(s string, n int) []string { return l.get().FindAllString(s, n) }
func (l *lazyRE) FindStringIndex(s string) []int         { return l.get().FindStringIndex(s) }
func (l *lazyRE) FindStringSubmatch(s string) []string   { return l.get().FindStringSubmatch(s) }
func (l *lazyRE) FindStringSubmatchIndex(s string) []int { return l.get().FindStringSubmatchIndex(s) }
func (l *lazyRE) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
func (l *lazyRE) ReplaceAllString(s, repl string) string { return l.get().ReplaceAllString(s, repl) }
func (l *lazyRE) ReplaceAllStringFunc(s string, f func(string) string) string {
	return l.get().ReplaceAllStringFunc(s, f)
}
func (l *lazyRE) Split(s string, n int) []string { return l.get().Split(s, n) }
