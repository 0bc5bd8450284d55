package observations

import (
	"strings"
	"unicode"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
)

// The language the person asks to be answered in, and whether the agent
// had just answered in another: "หยุดตอบภาษาอังกฤษ! ... ตอบภาษาไทย" after
// an English reply, "j'aimerais que tout soit en français" after an
// English one, "türkçe sorar mısın" after English questions. Asked of an
// agent that spoke another language, it corrects the agent (as well as
// stating a standing preference); asked of one that already spoke it, it
// only states the preference.

// replyLangNames maps the names of languages, as people write them in
// their own and other languages, to a language code.
var replyLangNames = map[string]string{}

// langName is a language's English name by its code.
var langName = map[string]string{}

func init() {
	for code, names := range map[string]string{
		"en": "english|anglais|englisch|inglés|ingles|inglês|inglese|английском|англійською|英文|英语|英語|영어|อังกฤษ|ingilizce|angielsku|anglicky|engels|بالإنجليزية|انگلیسی|באנגלית|αγγλικά|tiếng anh|bahasa inggris",
		"fr": "french|français|francais|französisch|francés|frances|francese|francês",
		"de": "german|deutsch|allemand|alemán|aleman|tedesco|alemão",
		"es": "spanish|español|espanol|castellano|espagnol|espanhol|spanisch|spagnolo",
		"pt": "portuguese|português|portugues|portugais|portoghese",
		"it": "italian|italiano|italien",
		"nl": "dutch|nederlands",
		"pl": "polish|polsku",
		"cs": "czech|česky|češtině",
		"tr": "turkish|türkçe|turkce",
		"vi": "vietnamese|tiếng việt",
		"id": "indonesian|bahasa indonesia|melayu|malay",
		"ru": "russian|русском|russe",
		"uk": "ukrainian|українською",
		"zh": "chinese|mandarin|中文|汉语|简体中文|繁体中文|中国語|chinois|중국어",
		"ja": "japanese|日本語|日文|japonais|일본어",
		"ko": "korean|한국어|韩文|韓国語|coréen|coreen",
		"th": "thai|ไทย",
		"ar": "arabic|العربية",
		"he": "hebrew|בעברית",
		"el": "greek|ελληνικά",
		"fa": "persian|farsi|فارسی",
		"hi": "hindi|हिंदी|हिन्दी",
	} {
		for i, n := range strings.Split(names, "|") {
			replyLangNames[n] = code
			if i == 0 {
				langName[code] = capitalize(n)
			}
		}
	}
}

// langScript is the script a language is written in; a language not
// listed is written in Latin letters.
var langScript = map[string]string{
	"zh": "han", "ja": "kana", "ko": "hangul", "th": "thai", "ru": "cyrillic", "uk": "cyrillic",
	"ar": "arabic", "fa": "arabic", "he": "hebrew", "el": "greek", "hi": "devanagari",
}

// askedReplyLanguage returns the code of the language text asks the agent
// to answer or work in (replyLanguageRE), "" when it asks for none or
// names no language it knows. A polite question ("türkçe sorar mısın",
// "can you answer in French?") asks as well as an order does.
func askedReplyLanguage(text string) string {
	ms := replyLanguageRE.FindAllString(text, -1)
	if len(ms) == 0 {
		return ""
	}
	// The language named last is the one asked for: "หยุดตอบภาษาอังกฤษ!
	// ... ตอบภาษาไทย" (stop answering in English ... answer in Thai).
	low := strings.ToLower(ms[len(ms)-1])
	best, at, size := "", -1, 0
	for name, code := range replyLangNames {
		if i := strings.LastIndex(low, name); i > at || i >= 0 && i == at && len(name) > size {
			best, at, size = code, i, len(name)
		}
	}
	return best
}

// scriptOf is the script most of the letters of s are written in:
// "latin", "han" (Chinese characters with no kana), "kana" (Japanese),
// "hangul", "thai", "cyrillic", "arabic", "hebrew", "greek",
// "devanagari", or "" for text with no letters.
func scriptOf(s string) string {
	counts := map[string]int{}
	kana := 0
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r):
		case r < 0x250:
			counts["latin"]++
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana++
			counts["han"]++ // Japanese text mixes kana and kanji
		default:
			for _, sc := range scripts {
				if unicode.Is(sc.table, r) {
					counts[sc.name]++
					break
				}
			}
		}
	}
	best, n := "", 0
	for sc, c := range counts {
		// A CJK character carries a word's meaning: weigh it as a short
		// word's letters.
		if sc == "han" || sc == "hangul" {
			c *= 3
		}
		if c > n || c == n && sc < best {
			best, n = sc, c
		}
	}
	if best == "han" && kana > 0 {
		return "kana"
	}
	return best
}

// scripts are the scripts scriptOf tells apart besides Latin and kana.
var scripts = []struct {
	name  string
	table *unicode.RangeTable
}{{"han", unicode.Han}, {"hangul", unicode.Hangul}, {"thai", unicode.Thai}, {"cyrillic", unicode.Cyrillic},
	{"arabic", unicode.Arabic}, {"hebrew", unicode.Hebrew}, {"greek", unicode.Greek}, {"devanagari", unicode.Devanagari}}

// pathWordRE is a word with a slash in it: a path or a URL, which says
// nothing of the language it stands in.
var pathWordRE = textutil.Lazy(`\S*[/\\]\S*`)

// spokeOther reports whether the agent's text was written in another
// language than lang: another script, or English where another language
// written in Latin letters was asked for (or the other way round). Too
// little prose to tell says no.
func spokeOther(agent, lang string) bool {
	// Code (codeSpanRE: fences, inline code) and paths are in no language.
	prose := pathWordRE.ReplaceAllString(codeSpanRE.ReplaceAllString(agent, " "), " ")
	sc := scriptOf(prose)
	if sc == "" {
		return false
	}
	want := langScript[lang]
	if want == "" {
		want = "latin"
	}
	if want == "kana" && sc == "han" || want == "han" && sc == "kana" {
		return true // Chinese where Japanese was asked, or the other way
	}
	if want != "latin" || sc != "latin" {
		return want != sc
	}
	// Both in Latin letters: English or not, by its commonest words.
	ws := strings.FieldsFunc(strings.ToLower(prose), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	if len(ws) < 8 {
		return false
	}
	en := 0
	for _, w := range ws {
		if lexicon.FunctionWords.Has(w) {
			en++
		}
	}
	// English prose is a third or more function words (a fifth is asked);
	// Spanish, Turkish or Indonesian hold a few that English shares ("a",
	// "me").
	english := en*100 >= len(ws)*20
	notEnglish := en*100 <= len(ws)*5
	if lang == "en" {
		return notEnglish
	}
	return english
}

// asksOtherLanguage reports whether u asks the agent to answer in a
// language other than the one its text before u was written in.
func asksOtherLanguage(tl *timeline, u *utterance) bool {
	if len(u.assistant) == 0 {
		return false
	}
	lang := askedReplyLanguage(u.text)
	if lang == "" {
		return false
	}
	var b strings.Builder
	for _, a := range u.assistant {
		if b.Len() > 4000 {
			break
		}
		b.WriteString(tl.rec(a).Text)
		b.WriteString("\n")
	}
	return spokeOther(b.String(), lang)
}
