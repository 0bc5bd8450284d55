package recall

import (
	"strings"
	"unicode"
)

// Tokens for lexical matching: lower-cased words, stop words dropped, light
// stemming. The index's own analyzer and scoring (bleve tf-idf) do
// retrieval; these decide precision.

// Words are the words of s that recall matches cues on: lower-cased
// letters and digits, no stop words, no one-letter words or short
// numbers.
func Words(s string) []string {
	if len(s) > 20000 {
		s = s[:20000]
	}
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r))
	})
	out := f[:0]
	for _, w := range f {
		if len(w) < 2 || len(w) > 40 || stopWords[w] {
			continue
		}
		if allDigits(w) && len(w) < 3 {
			continue
		}
		out = append(out, w)
	}
	return out
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// stem strips the common English suffixes, so that "migrations" and
// "migrate" meet.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 6 && strings.HasSuffix(w, "ations"):
		w = w[:n-6] + "ate"
	case n > 5 && strings.HasSuffix(w, "ation"):
		w = w[:n-5] + "ate"
	case n > 6 && strings.HasSuffix(w, "ings"):
		w = w[:n-4]
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = w[:n-2]
	case n > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes") ||
		strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "zes")):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// stemSet is the set of the stems of the words of s.
func stemSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range Words(s) {
		if st := stem(w); st != "" {
			out[st] = true
		}
	}
	return out
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with from into onto as is are was were be been being
		it its this that these those there here we you your our us i me my he she they them their do does did done doing not no nor
		so than too very can could should would will shall may might must just also only about after before again all any both
		each few more most other some such own same what which who whom when where why how up down out over under off
		go md go's let lets use used using make made get got run ran need needs want wants please thanks ok okay
		new add adds added file files code thing things way like instead never always don doesn didn won isn aren wasn
		s t d ll re ve m www http https com org net home tmp usr etc`) {
		m[w] = true
	}
	return m
}()

// keepWords are stop words that word cues use ("add dependency", "new
// package", "run test").
var keepWords = map[string]bool{"add": true, "new": true, "run": true, "all": true, "file": true, "files": true, "code": true,
	"no": true, "not": true, "use": true, "make": true, "get": true, "out": true, "up": true, "down": true, "off": true}
