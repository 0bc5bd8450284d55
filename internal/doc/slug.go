package doc

import (
	"strings"
	"unicode"
)

// SlugMaxLen is the longest slug Slug returns.
const SlugMaxLen = 60

// foldASCII maps common Latin letters with diacritics to ASCII.
var foldASCII = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'ă': "a", 'ą': "a",
	'æ': "ae", 'ç': "c", 'ć': "c", 'č': "c", 'ĉ': "c", 'ċ': "c", 'ď': "d", 'đ': "d", 'ð': "d",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ė': "e", 'ę': "e", 'ě': "e",
	'ğ': "g", 'ĝ': "g", 'ģ': "g", 'ĥ': "h", 'ħ': "h",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ī': "i", 'į': "i", 'ı': "i",
	'ĵ': "j", 'ķ': "k", 'ĺ': "l", 'ļ': "l", 'ľ': "l", 'ł': "l",
	'ñ': "n", 'ń': "n", 'ň': "n", 'ņ': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ō': "o", 'ő': "o", 'œ': "oe",
	'ŕ': "r", 'ř': "r", 'ś': "s", 'š': "s", 'ş': "s", 'ș': "s", 'ß': "ss",
	'ť': "t", 'ţ': "t", 'ț': "t", 'þ': "th",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ū': "u", 'ů': "u", 'ű': "u", 'ų': "u",
	'ý': "y", 'ÿ': "y", 'ź': "z", 'ż': "z", 'ž': "z",
}

// Slug turns a title into a file name stem: lowercase ASCII letters and
// digits separated by single hyphens, at most SlugMaxLen bytes (cut at a
// hyphen when possible), never empty ("untitled"), never "." or "..".
func Slug(title string) string {
	var b strings.Builder
	hyphen := false
	add := func(s string) {
		if hyphen && b.Len() > 0 {
			b.WriteByte('-')
		}
		hyphen = false
		b.WriteString(s)
	}
	for _, r := range title {
		r = unicode.ToLower(r)
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			add(string(r))
		case foldASCII[r] != "":
			add(foldASCII[r])
		case r == '\'' || r == '’':
			// "don't" -> "dont"
		default:
			hyphen = true
		}
		if b.Len() > SlugMaxLen+8 {
			break
		}
	}
	s := b.String()
	if len(s) > SlugMaxLen {
		s = s[:SlugMaxLen]
		if i := strings.LastIndexByte(s, '-'); i >= SlugMaxLen/2 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	if s == "" {
		return "untitled"
	}
	return s
}
