package lexicon

import (
	"strings"

	"github.com/kbmem/kb/internal/textutil"
)

// Japanese and Korean put the verb, and its negation, at the end of the
// clause: "日本の都市がないね" (there are no Japanese cities), "好きじゃない
// から" (since I don't like it), "검색이 안 되네" (search doesn't work). A
// cue list looks for a negation at the start of a message, where English,
// Chinese and the Romance languages put it; NegatedPredicate looks for it
// where these languages do.
var (
	// negPredicateRE is a clause that ends in a negated predicate: the
	// plain and polite negative endings, then a conjunction (から, けど:
	// the clause goes on) or the sentence-final particles of a remark (ね,
	// よ...) and a clause or sentence boundary.
	negPredicateRE = textutil.Lazy(`(?:ない|なかった|なくて|ません|ませんでした|(?:않|없|안\s?돼|안\s?되|못\s?하)[아어네는지요다]*|아니[야에요다])` +
		`(?:(?:ん?だ?けど|んですけど|けれど|のに|から|ので)|(?:ね|よね|よ|し|な|わ|です|んだ|の|みたい|ぞ)?(?:[、，,。．！!…\s]|$))`)
	// negIdiomRE are the endings that are not a complaint: "問題ない"
	// (no problem), "悪くない" (not bad), "かもしれない" (might), "しか
	// ない" (the only way), "仕方ない", "間違いない" (certainly), "構わな
	// い" (I don't mind), "申し訳ない" (sorry), "いいんじゃない" (that's
	// good, isn't it), "ないと" (must), "괜찮" (fine).
	negIdiomRE = textutil.Lazy(`(?:問題|悪く|しれ|しか|仕方|しょうが|間違い|構わ|申し訳|関係|かまわ|もったい|いいんじゃ|良いんじゃ|すごいじゃ|少なく)(?:ない|なかった|ありません)|문제\s?없|나쁘지\s?않|상관\s?없|괜찮`)
)

// NegatedPredicate reports whether a clause of s ends in a negated
// predicate in Japanese or Korean (not one of the idioms that mean "fine"
// or "might"): the remark that something is missing, does not work or is
// not wanted.
func NegatedPredicate(s string) bool {
	if !hasJaKo(s) {
		return false
	}
	for _, m := range negPredicateRE.FindAllStringIndex(s, -1) {
		head := s[:m[1]]
		if loc := negIdiomRE.FindAllStringIndex(head, -1); len(loc) > 0 && loc[len(loc)-1][1] >= m[0] {
			continue
		}
		return true
	}
	return false
}

// hasJaKo reports whether s holds kana or hangul.
func hasJaKo(s string) bool {
	for _, r := range s {
		if r >= 0x3040 && r <= 0x30ff || r >= 0xac00 && r <= 0xd7a3 {
			return true
		}
	}
	return false
}

// requestEndRE is a sentence that ends in a Japanese or Korean request:
// the te-form alone or with ください, ほしい, おいて; the volitional
// (しよう, しましょう); ように; a prohibition (てはいけない, ちゃダメ,
// ないこと); Korean 주세요, 줘, 해, 하자, and its prohibitions (하지 마세요,
// 하지 말아 주세요, 하면 안 돼요).
var requestEndRE = textutil.Lazy(`(?:[てで](?:ください|くれ|くれる|ほしい(?:です)?|おいて|みて)?|[しにを]よう|しましょう|ように|なさい|てはいけ(?:ない|ません)|ちゃ(?:だめ|ダメ)|ないこと|주세요|줘요?|해요?|하세요|하자|해라|지\s?마(?:세요|십시오|라|요)?|지\s?말아(?:요|\s?주세요)?|면\s?안\s?(?:돼요?|됩니다))(?:ね|よ|な|か)?[\s。．.！!…~〜]*$`)

// RequestEnd reports whether sentence s ends in a request in Japanese or
// Korean, where the verb, and so the request, comes last ("ここ三層構造
// にして", "フォントを小さくしてください", "버튼을 추가해 주세요").
//
// An aside in parentheses after the request ("再生成してね（CI もこうしてる）。")
// is left out: the request is the verb before it.
func RequestEnd(s string) bool {
	return hasJaKo(s) && requestEndRE.MatchString(trailingAsideRE.ReplaceAllString(s, ""))
}

// trailingAsideRE is a parenthesised aside that ends a sentence, with the
// sentence's final punctuation.
var trailingAsideRE = textutil.Lazy(`\s*[（(][^（）()]*[）)][\s。．.！!…~〜]*$`)

// NegatedStatementStart reports whether s opens with a negated verb that
// states a result, where the language puts its negation first: Russian,
// Ukrainian and Bulgarian "не тянется картинка", "не работает", "не
// видно" (not the imperatives "не трогай", "не делайте", nor "не надо");
// Chinese "没有反应", "没显示"; Korean "안 나와요", "안 돼". In English
// a sentence that opens with its negation gives an order ("don't ...",
// "no, ..."); in these it reports what the person saw.
func NegatedStatementStart(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range []string{"没有", "沒有", "没", "沒", "还没", "還沒"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(s, "안"); ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "돼") || strings.HasPrefix(rest, "되")) {
		return true
	}
	f := strings.Fields(strings.ToLower(s))
	if len(f) < 2 || f[0] != "не" {
		return false
	}
	verb := strings.TrimRight(f[1], ".,!?…")
	switch verb {
	case "надо", "нужно", "стоит", "треба", "потрібно", "трябва", "можно", "можна":
		return false // "не надо": no need, an instruction
	}
	for _, imp := range []string{"йте", "ите", "іть", "й", "и", "і"} {
		if strings.HasSuffix(verb, imp) {
			return false // "не трогай", "не делайте", "не пиши": an order
		}
	}
	return verb != ""
}
