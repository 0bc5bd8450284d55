package recall

import (
	"github.com/kbmem/kb/internal/lexicon"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// The complete lesson and its signatures.
//
// Extraction keeps a correction's lesson short (often its first sentence:
// "Do not use rm -rf."), while the part the agent needs, what to do
// instead ("`make clean` removes exactly what the build produces"), is
// in the person's own words that the observation's excerpt quotes. Recall
// shows those words whole (up to maxLessonText), and reads them for the
// lesson's signatures: the code spans the person named, split into what
// is prohibited (a span in a clause with a negation) and what is advised
// (the rest). A prohibited span in the text an edit writes, or in the
// command a call runs, is the specific signal a broad action type lacks.

// maxLessonText bounds the complete lesson shown for one item.
const maxLessonText = 420

// personWords returns what the person said in the observation's excerpt
// ("User: ..." lines), or "".
func personWords(o *observations.Observation) string {
	if o == nil || o.Excerpt == "" || o.AgentAuthored() {
		return ""
	}
	return personWordsOf(o.Excerpt)
}

// readSaid sets c.said, the person's words its signatures are read from,
// for a proposal that writes or runs something: the index stores the
// excerpt (schema 4), so no file is opened.
func (cu *cue) readSaid(c *candidate) {
	if c.layer == LayerObservations && (cu.written != "" || cu.command != "") && c.typ != observations.TypeProcedure &&
		c.author != observations.AuthorAgent {
		c.said = personWordsOf(c.excerpt)
	}
}

// wroteSignatures are the prohibited signatures an excerpt's "Agent:"
// line records (observations.WroteMark): code the agent wrote that the
// person's negation named ("don't call services with axios" after an edit
// that imports axios).
func wroteSignatures(excerpt string) []signature {
	var out []signature
	for _, ln := range strings.Split(excerpt, "\n") {
		ln = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ln), ">"))
		if !strings.HasPrefix(ln, "Agent:") {
			continue
		}
		_, wrote, ok := strings.Cut(ln, observations.WroteMark)
		if !ok {
			continue
		}
		for _, m := range backtickRE.FindAllStringSubmatch(wrote, -1) {
			out = append(out, signature{text: m[1], prohibited: true})
		}
	}
	return out
}

// maxSaidCode is how much of the person's words signatures are read
// from.
const maxSaidCode = 600

// saidSignatures are the signatures of the person's words and of what the
// excerpt records the agent wrote against them.
func saidSignatures(excerpt, said string) []signature {
	// Code is read from the first words only: what the lesson prohibits
	// comes early, and a long message past them is more often code the
	// person pasted than rules (the rest is read for its exceptions:
	// allowedPlace).
	// Nor from what the person pasted (a traceback names the columns
	// and calls of the failure, which the fix writes again).
	own, allPasted := cutPasted(textutil.FirstRunes(said, maxSaidCode))
	var sigs []signature
	if !allPasted {
		sigs = signatures(own)
	}
	for _, w := range wroteSignatures(excerpt) {
		if !slices.ContainsFunc(sigs, func(s signature) bool { return s.text == w.text }) {
			sigs = append(sigs, w)
		}
	}
	return sigs
}

// personWordsOf is the "User:" lines of an excerpt, joined.
func personWordsOf(excerpt string) string {
	var said []string
	for _, ln := range strings.Split(excerpt, "\n") {
		ln = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ln), ">"))
		if rest, ok := strings.CutPrefix(ln, "User:"); ok {
			said = append(said, strings.TrimSpace(rest))
		}
	}
	return strings.Join(said, " ")
}

// completeLesson is the lesson with its instead-part: the person's words
// it was cut from, when the lesson is their beginning or a part of them,
// cut at a sentence end within maxLessonText; otherwise the lesson.
func completeLesson(o *observations.Observation) string {
	lesson, said, key := wordsOf(o, o.Lesson)
	if key == "" {
		return lesson
	}
	// The lesson may be the person's words lightly rewritten ("no rm -rf"
	// -> "Do not use rm -rf"): its signatures or its longest words must
	// be in them.
	if sp := spelledOut(said); !strings.Contains(sp, key) && !rewrittenLead(sp, key) && !sharesSignature(lesson, said) {
		return lesson
	}
	return fitLesson(said, maxLessonText, key)
}

// rewrittenLead reports whether key, the lesson's beginning, is said's
// words with their opening rewritten by the extractor ("no X" -> "Do not
// use X", "how about X" -> "Consider X", "you should X" -> "X"): what
// follows the lesson's first one to three words is in said, and is long
// enough to tell.
func rewrittenLead(said, key string) bool {
	rest := key
	for range 3 {
		_, r, ok := strings.Cut(rest, " ")
		if !ok || len(r) < 16 {
			return false
		}
		if rest = r; strings.Contains(said, rest) {
			return true
		}
	}
	return false
}

// wordsOf is text (a lesson or statement of o) on one line, the person's
// words it may have been cut from, and the key it is found by in them: its
// first 40 bytes with contractions spelled out, as extraction writes the
// person's "don't put keys in code" as "Do not put keys in code". key is
// "" when the person's words hold nothing more than text.
func wordsOf(o *observations.Observation, text string) (line, said, key string) {
	line = textutil.OneLine(text)
	said = textutil.OneLine(personWords(o))
	if said == "" || len(said) <= len(line) {
		return line, said, ""
	}
	key = spelledOut(strings.TrimRight(line, ".!。"))
	if len(key) > 40 {
		key = key[:40]
	}
	return line, said, key
}

// maxStatementText bounds the complete statement of a preference.
const maxStatementText = 300

// completeStatement is a preference's statement with what the person said
// after it in the same message: the statement is one sentence of their
// words, and the sentences after it often say what to do instead ("take
// the fmt.Println out ... use the slog logger from the context"). The
// words before it (an acknowledgement, the answer to a question) are not
// part of the preference, and the statement stands as extraction worded
// it.
func completeStatement(o *observations.Observation) string {
	st, said, key := wordsOf(o, o.Statement)
	if key == "" {
		return st
	}
	sents := sentences(said)
	for i, s := range sents {
		if strings.Contains(spelledOut(s), key) {
			if i+1 < len(sents) {
				// The statement as extraction worded it, then the rest.
				return fitLesson(st+" "+strings.Join(sents[i+1:], " "), maxStatementText, "")
			}
			break
		}
	}
	return st
}

// fitLesson cuts the person's words to max bytes by whole sentences: the
// one the lesson starts in (the sentence from which on they hold key, the
// lesson's spelled-out beginning; the first one when key is ""), then
// those that say what to do instead (instruction words, code spans), then
// the others (reasons, asides) while they fit, in their order, "…" where
// one was left out. A lesson that is the third point of a long message
// keeps its point, whatever the preamble before it. The sentence kept
// first, over max, is cut at a clause.
func fitLesson(said string, max int, key string) string {
	sents := sentences(said)
	// A question after the first sentence is asked of the agent in the
	// moment ("Does this doc page help?"): it is no part of the lesson,
	// and the asides after it are the conversation moving on (often a
	// pasted page), not reasons for it, however short the whole is.
	asked := len(sents)
	for i := 1; i < len(sents); i++ {
		if isAsked(sents[i]) {
			asked = min(asked, i)
		}
	}
	if len(said) <= max && asked == len(sents) {
		return said
	}
	if len(sents) > 1 && approves(sents[0]) {
		// "ok that one's fine, it went to your local db.": the person's
		// approval of the last step is no part of the lesson after it,
		// and it would take the room of the instead-part.
		sents = sents[1:]
		asked--
	}
	first := 0
	if key != "" {
		// The sentence the key starts in, by its place in the words
		// spelled out once (spelledOut works word by word, so the parts
		// keep their lengths).
		if at := strings.Index(spelledOut(strings.Join(sents, " ")), key); at > 0 {
			for end := 0; first < len(sents)-1; first++ {
				if end += len(spelledOut(sents[first])) + 1; end > at {
					break
				}
			}
		}
	}
	if len(sents[first]) > max {
		return cutClause(sents[first], max)
	}
	keep := make([]bool, len(sents))
	keep[first] = true
	n := len(sents[first])
	for _, pass := range []bool{true, false} {
		for i := 0; i < len(sents); i++ {
			if keep[i] || insteadPart(sents[i]) != pass || i > 0 && isAsked(sents[i]) || (!pass && i > asked) {
				continue
			}
			if n+1+len(sents[i]) <= max-4 {
				keep[i], n = true, n+1+len(sents[i])
			}
		}
	}
	var b strings.Builder
	for i, s := range sents {
		switch {
		case keep[i]:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s)
		case i > 0 && keep[i-1]:
			b.WriteString(" …")
		}
	}
	return b.String()
}

// approves reports whether sentence s only approves of what the agent did
// (observations.Approves), with no contrast and nothing the signatures
// would read as what to do ("looks good, but ...").
func approves(s string) bool {
	return observations.Approves(s) && !lexicon.CueContrast.In(strings.ToLower(s)) && !negates(s) && !insteadPart(s)
}

// sentences splits text after a sentence end followed by a space, never
// inside a code span.
func sentences(text string) []string {
	var out []string
	start, inCode, inList := 0, false, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '`':
			inCode = !inCode
		case !inCode && (c == '.' || c == '!' || c == '?') && i+1 < len(text) && text[i+1] == ' ' && !(c == '.' && lexicon.Abbreviation(text, i+1)) &&
			!(c == '.' && isNumberMark(text[start:i+1])): // "1. " opens an item
			out = append(out, strings.TrimSpace(text[start:i+1]))
			start, inList = i+1, false
		case !inCode && c >= utf8.RuneSelf:
			// Chinese and Japanese end a sentence with no space after it.
			if r, size := utf8.DecodeRuneInString(text[i:]); lexicon.FullWidthEnd(r) {
				out = append(out, strings.TrimSpace(text[start:i+size]))
				start, inList = i+size, false
			}
		case !inCode && (c == '-' || c == '*' || numberedItem(text, i)) && i > 0 && text[i-1] == ' ' && i+1 < len(text) && (text[i+1] == ' ' || c >= '0' && c <= '9') &&
			(inList || strings.HasSuffix(strings.TrimRight(text[start:i], " "), ":") || strings.HasSuffix(strings.TrimRight(text[start:i], " "), "：")):
			// "Trois choses : - les montants ... - on compare ...", "不满意的地方：
			// 1、... 2、...": a list written on one line; each item is a
			// sentence.
			if seg := strings.TrimSpace(text[start:i]); seg != "" {
				out = append(out, seg)
			}
			start, inList = i, true
		}
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// numberedItem reports whether text at i opens a numbered item: a number
// of one or two digits, then "、", ")" or ". " ("1、", "2)", "3. ").
func numberedItem(text string, i int) bool {
	j := i
	for j < len(text) && j-i < 2 && text[j] >= '0' && text[j] <= '9' {
		j++
	}
	if j == i || j >= len(text) {
		return false
	}
	rest := text[j:]
	return strings.HasPrefix(rest, "、") || strings.HasPrefix(rest, ") ") || strings.HasPrefix(rest, ". ")
}

// isNumberMark reports whether seg, up to a full stop, is only the number
// that opens an item ("2." of "2. ship it"): no sentence of its own.
func isNumberMark(seg string) bool {
	seg = strings.TrimSpace(seg)
	return len(seg) >= 2 && len(seg) <= 3 && strings.Trim(seg[:len(seg)-1], "0123456789") == ""
}

// adviceRE: a word that asks for what follows it (an instruction, a
// replacement), in the languages of the signature rules: a sentence that
// holds one tells what to do (fitLesson); the last one before a code span
// makes it advised (polarity).
var adviceRE = textutil.Lazy(`(?i)(?:^|[^\p{L}])(?:instead|rather|but|use|run|add|put|pass|call|keep|move|switch|prefer|always|only|make sure|should|must|need to|has to|brug|bruk|använd|használd|használj|χρησιμοποίησε|використовуй|käytä|folosește|použi|fes servir|utilitza|i stedet|i stället|helyett|αντί|замість|sen sijaan|în loc de|namiesto|en lloc de|altid|alltid|mindig|πάντα|завжди|aina|mereu|vždy|sempre|go(?:es)? (?:in|into|through)|comes? (?:in|from|through)|via|through|statt|stattdessen|sondern|verwende|nimm|benutze|immer|en su lugar|usa|utiliza|siempre|sino|plutôt|utilise|toujours|mais|вместо|используй|всегда|ajoute|ajouter|mets|déplace|añade|agrega|pon|mueve|aggiungi|metti|sposta|adicione|adiciona|coloque|mova|füge|pack|leg|verschiebe|добавь|положи|перенеси|voeg|zet|dodaj|przenieś|użyj|zrób|uruchom|weź|použij|udělej|spusť|сделай|запусти|возьми|haz|ejecuta|faça|rode|fais|lance|prends|esegui|lancia|prendi|mach|führe|ekle|только|лишь|nur|solo|sólo|seulement|uniquement|apenas|soltanto|tylko|sadece|alleen|lewat|pakai|pake|gunakan|selalu|нужно|надо|необходимо|следует|muss|musst|soll|sollte|solltest|hay que|debes|il faut|il faudrait|tu dois|devi|bisogna|tem que|harus|perlu|gerek|moet|musisz|trzeba)(?:[^\p{L}]|$)|请|改用|使用|加到|放到|添加到|需要|应该|必须|希望|代わりに|使って|追加して|入れて|べき|대신|추가해|넣어|해야`)

// isAsked reports whether sentence s is a question.
func isAsked(s string) bool { return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") }

func insteadPart(s string) bool { return strings.Contains(s, "`") || adviceRE.MatchString(s) }

// cutClause cuts s to max bytes at the last clause or word boundary.
func cutClause(s string, max int) string {
	cut := s[:max-len("…")]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	if i := strings.LastIndexAny(cut, ",;:—"); i > max/2 {
		cut = cut[:i]
	} else if i := strings.LastIndexByte(cut, ' '); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…"
}

// spelledOut is s in lower case with English negative contractions
// spelled out and curly apostrophes straightened ("Don’t" -> "do not").
func spelledOut(s string) string {
	return contractions.Replace(strings.ToLower(strings.ReplaceAll(s, "’", "'")))
}

var contractions = strings.NewReplacer("don't", "do not", "doesn't", "does not", "didn't", "did not", "can't", "cannot",
	"won't", "will not", "isn't", "is not", "aren't", "are not", "shouldn't", "should not", "mustn't", "must not",
	"wouldn't", "would not", "never ever", "never")

func sharesSignature(a, b string) bool {
	bs := signatures(b)
	for _, s := range signatures(a) {
		for _, t := range bs {
			if strings.EqualFold(s.text, t.text) {
				return true
			}
		}
	}
	return false
}

// signature is one concrete thing a lesson names: a command, a flag, a
// call, a pattern of code.
type signature struct {
	text       string
	prohibited bool
	// weak: a plain word taken as code ("no floats near money"): it
	// fires only on code that is about the lesson's subject too.
	weak bool
}

var (
	backtickRE = textutil.Lazy("`([^`\n]{2,200})`").WithHint(func(s string) bool { return strings.IndexByte(s, '`') >= 0 })
	// codeTokenRE finds code written without backticks: dotted calls and
	// selectors (time.Now(), console.log, fmt.Println), format verbs (%v),
	// flags with their program (rm -rf), SQL shapes (SELECT *), Rust
	// macros (println!, dbg!, query_as!), a member written alone (".Result",
	// ".Wait()", ".unwrap()"; not ".env", which is a file kind), a
	// namespaced command (migrate:refresh, db:reset, cache:clear).
	codeTokenRE = textutil.Lazy(`(?:[A-Za-z_$@][\w$]*(?:\.[A-Za-z_]\w*)+(?:\(\))?)|(?:%[a-z])|(?:\b[a-z][\w-]*\s+--?[A-Za-z][\w-]*)|(?:\b(?:SELECT|select)\s+\*)|(?:\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b)|(?:\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b)|(?:\b[a-z_][a-z0-9_]*\(\))|(?:@[A-Za-z][\w.]+)|(?:\.(?:[A-Z]\w*|[a-z_]\w*\(\)))|(?:\b[a-z][a-z0-9_-]*:[a-z][a-z0-9_:-]*)|` + macroPattern).WithHint(mayHoldCodeToken)
	// clauseRE splits a text into clauses: sentences (CJK ones need no
	// space after their stop), and the turns of "X, use Y instead" /
	// "X; Y" / "X — Y".
	clauseRE = textutil.Lazy(`[.!?;]\s+|[。！？；]\s*|\s+[—–]\s+|,\s+(?:use|nimm|usa|utilise|verwende|instead|but|sondern|sino|mais)\b|\s+instead\b`)
	// insteadOfPhrases are the "instead of" of each language insteadOfRE
	// reads ("anstatt" holds "statt").
	insteadOfPhrases = []string{"instead of", "rather than", "statt", "anstatt", "en lugar de", "en vez de", "au lieu de"}
	insteadOfRE      = textutil.LazyOf(func() string { return `(?i)\b(?:` + strings.Join(insteadOfPhrases, "|") + `)\b` }).WithHint(mayHoldInsteadOf)
	// negRE: a negation or a removal ("drop the console.log", "take the
	// fmt.Println out"), in the languages of the shared data and a few
	// more (English, German, Spanish, French, Portuguese, Italian), and
	// the negations of Chinese, Japanese and Korean, which need no
	// spaces around them (不要, 别, 使わないで, 하지 마).
	negRE = textutil.Lazy(`(?i)(?:^|[^\p{L}\p{M}])(?:not|no|never|sin|ni|sem|nem|ohne|sans|zonder|drop|dropped|remove|removed|deprecated|take|get rid|nuke|rip|ditch|strip|scrap|quita|elimina|entferne|weg|don'?t|doesn'?t|won'?t|shouldn'?t|can'?t|cannot|mustn'?t|isn'?t|aren'?t|wasn'?t|avoid|stop|without|nothing|kein|keine|keinen|nicht|nie|niemals|nunca|jamás|jamais|pas|ne|nada|non|mai|evita|evitar|vermeide|ban|bans|banned|нет|не|нельзя|никогда|без|nie|nigdy|bez|asla|yok|değil|không|đừng|niet|nooit|geen|niente|senza|hayır|kullanma|yapma|ekleme|silme|koyma|oluşturma|değiştirme|dokunma|çalıştırma|jangan|tidak|bukan|ikke|ikkje|aldrig|aldri|inte|nej|soha|sose|όχι|μην|ποτέ|δεν|ні|ніколи|никога|недей|älä|koskaan|niciodată|nerob|לא|אל|नहीं|मत|لا|ولا|ليس|لم|لن|أبدا|ابدا|بدون|ممنوع)(?:[^\p{L}\p{M}]|$)|不要|不能|禁止|不准|不许|(?:^|[，。！？、\s])别|ห้าม|อย่า|ไม่ต้อง|ไม่ควร|ないで|やめて|ダメ|だめ|지\s?마|지\s?않|말고|금지|안\s?돼`)
)

// splitClauses splits text into clauses (clauseRE; in Thai, at the spaces
// between Thai words).
func splitClauses(text string) []string {
	if strings.ContainsFunc(text, isThai) {
		text = thaiClauses(text)
	}
	if !strings.Contains(text, "!") || !macroRE.MatchString(text) {
		return clauseRE.Split(text, -1)
	}
	// "println! ya da dbg! koyma": a macro's bang ends no clause.
	text = macroRE.ReplaceAllStringFunc(text, func(m string) string { return strings.TrimSuffix(m, "!") + macroBang })
	out := clauseRE.Split(text, -1)
	for i := range out {
		out[i] = strings.ReplaceAll(out[i], macroBang, "!")
	}
	return out
}

// macroRE is a Rust macro named bare (println!, dbg!, query_as!);
// macroBang stands in for its bang while a text is split into clauses.
var macroRE = textutil.Lazy(macroPattern)

const macroPattern = `\b(?:[a-z][a-z0-9]*_[a-z0-9_]+|println|eprintln|print|eprint|dbg|format|vec|panic|todo|unimplemented|unreachable|assert|write|writeln|query|matches|json|html|include_str)!`

const macroBang = "\uE000"

func isThai(r rune) bool { return unicode.Is(unicode.Thai, r) }

// thaiClauses marks with "; " each run of spaces between two Thai
// letters: Thai writes no spaces between words, one between clauses and
// sentences (and around the Latin words it quotes).
func thaiClauses(text string) string {
	var b strings.Builder
	var prev rune
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) && isThai(prev) {
			j := i
			for j < len(text) {
				s, m := utf8.DecodeRuneInString(text[j:])
				if !unicode.IsSpace(s) {
					break
				}
				j += m
			}
			if next, _ := utf8.DecodeRuneInString(text[j:]); isThai(next) {
				b.WriteString("; ")
				i, prev = j, ' '
				continue
			}
		}
		b.WriteRune(r)
		prev = r
		i += n
	}
	return b.String()
}

// negates is negRE.MatchString(s): for text of ASCII alone, without the
// expression (whose alternation, tried at every position, was a fifth of
// the candidate records' CPU in a compile of 10,000 notes). In ASCII,
// \p{L} is [A-Za-z], the case folding of (?i) is ASCII's, and only the
// ASCII alternatives can match: a maximal run of letters that is one of
// them, or "get rid" or "don't" (and its kin) across their one space or
// apostrophe. TestNegatesIsNegRE and FuzzNegates compare the two.
func negates(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return negRE.MatchString(s)
		}
	}
	// run returns the maximal run of letters at i and where it ends.
	run := func(i int) (string, int) {
		j := i
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		return s[i:j], j
	}
	var word [16]byte
	for i := 0; i < len(s); {
		if !isASCIILetter(s[i]) {
			i++
			continue
		}
		w, end := run(i)
		if len(w) <= len(word) {
			lw := word[:len(w)]
			for k := range len(w) {
				lw[k] = s[i+k] | 0x20 // letters only: lower case
			}
			switch string(lw) {
			case "not", "no", "never", "drop", "remove", "take", "nuke", "rip", "ditch", "strip", "scrap", "quita", "elimina", "entferne", "weg",
				"dont", "doesnt", "wont", "shouldnt", "avoid", "stop", "without", "nothing", "kein", "keine", "keinen",
				"nicht", "nie", "niemals", "nunca", "jamais", "pas", "ne", "nada", "non", "mai", "evita", "evitar",
				"vermeide", "ban", "bans", "banned", "nigdy", "bez", "asla", "yok", "niet", "nooit", "geen", "niente", "senza",
				"dropped", "removed", "deprecated", "jangan", "tidak", "bukan", "cant", "cannot", "mustnt", "isnt", "arent",
				"wasnt", "kullanma", "yapma", "ekleme", "silme", "koyma", "dokunma", "ikke", "ikkje", "aldrig", "aldri", "inte",
				"nej", "soha", "sose", "koskaan", "nerob":
				return true
			case "don", "doesn", "won", "shouldn", "can", "mustn", "isn", "aren", "wasn":
				if end+1 < len(s) && s[end] == '\'' {
					if t, _ := run(end + 1); t == "t" || t == "T" {
						return true
					}
				}
			case "get":
				if end+1 < len(s) && s[end] == ' ' {
					if t, _ := run(end + 1); strings.EqualFold(t, "rid") {
						return true
					}
				}
			}
		}
		i = end
	}
	return false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// mayHoldCodeToken reports whether codeTokenRE can match s: each of its
// alternatives needs one of these (a selector's dot before a letter, a
// format verb, a flag after white space, SELECT *, a CamelCase hump, a
// snake_case underscore, a call's "()", an annotation's "@", a macro's
// bang, kept or set aside by splitClauses as macroBang, a namespaced
// command's colon).
func mayHoldCodeToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		var next, prev byte
		if i+1 < len(s) {
			next = s[i+1]
		}
		if i > 0 {
			prev = s[i-1]
		}
		switch {
		case c == '.' && (isASCIILetter(next) || next == '_'),
			c == ':' && next >= 'a' && next <= 'z',
			c == '%' && next >= 'a' && next <= 'z',
			c == '-' && (prev == ' ' || prev >= '\t' && prev <= '\r'),
			c == '*', c == '_', c == '!',
			c == '(' && next == ')',
			c == '@' && isASCIILetter(next),
			c >= 'A' && c <= 'Z' && (prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9'),
			c == macroBang[0]:
			return true
		}
	}
	return false
}

// mayHoldInsteadOf reports whether insteadOfRE can match s: one of its
// phrases in lower case, or a letter whose case folds to an ASCII one
// (the long s, the Kelvin sign).
func mayHoldInsteadOf(s string) bool {
	if strings.ContainsAny(s, "\u017f\u212a") {
		return true
	}
	low := strings.ToLower(s)
	return slices.ContainsFunc(insteadOfPhrases, func(p string) bool { return strings.Contains(low, p) })
}

// namesProseCLI reports whether proseCommandRE can match s: one of
// proseCLIs stands in it as a word.
func namesProseCLI(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '$' || r >= utf8.RuneSelf || !textutil.IdentByte(byte(r)) }) {
		if slices.Contains(proseCLIs, w) {
			return true
		}
	}
	return false
}

// signatures returns the code spans of a text with their polarity.
func signatures(text string) []signature {
	// "use Y instead of X": X is what is prohibited.
	text = insteadOfRE.ReplaceAllString(text, ". not ")
	var out, banned []signature
	seen := map[string]bool{}
	for _, cl := range splitClauses(text) {
		neg := negates(cl)
		add := func(s string, at int, span bool) {
			if span {
				// A code span is code to the letter: the "." of `git add .`
				// is what makes it the prohibited command. One that ends in
				// an ellipsis is a prefix (`gridwise-prod.marts...`):
				// containsSpan reads the "…" so.
				s = strings.TrimSpace(s)
				for _, elided := range []string{"(...)", "(…)"} {
					// `env.CACHE.put(...)`: the call, whatever its
					// arguments.
					if p, ok := strings.CutSuffix(s, elided); ok && len(p) >= 2 {
						s = p + "(..."
						break
					}
				}
				if p, ok := strings.CutSuffix(s, "..."); ok && len(p) >= 2 {
					s = p + "…"
				}
				if loc := placeholderRE.FindStringIndex(s); loc != nil && loc[0] >= 2 {
					// `bundle update --conservative <gem>`: what comes
					// before the placeholder, followed by anything.
					s = strings.TrimSpace(s[:loc[0]]) + "…"
				}
			} else if m := strings.TrimSpace(s); len(m) > 1 && m[0] == '.' && isASCIILetter(m[1]) && !strings.Contains(m, "(") {
				// ".Result": the member, with its dot (a call, ".Wait()",
				// is the call of any receiver).
				s = strings.TrimRight(m, ".,;:")
			} else {
				s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), ".,;:"))
			}
			if len(s) < 2 || seen[s] {
				return
			}
			seen[s] = true
			prohibited := polarity(cl[:at], neg)
			if prohibited && !negRE.MatchString(cl[:at]) && lexicon.CueAllowed.In(strings.ToLower(cl[at:])) {
				// "unwrap_or / unwrap_or_default están bien porque no
				// hacen panic": the clause calls what it names
				// acceptable; its negation is about something else.
				prohibited = false
			}
			if prohibited && !negRE.MatchString(cl[:at]) && alternativeAfter(cl[at:]) {
				// "if a migration is stuck, `mix ecto.rollback --step 1`,
				// or drop the leftover object by hand": the negation
				// word is in the next alternative, not over this one.
				prohibited = false
			}
			if !prohibited && strings.HasPrefix(s, "-") {
				// "dotnet add package with --version puts the version on
				// the PackageReference and restore fails": a flag named
				// before a failure is its cause.
				if f := failRE.FindStringIndex(cl); f != nil && f[0] > at && !otherwiseRE.MatchString(cl) {
					prohibited = true
				}
			}
			if !prohibited && !adviceRE.MatchString(cl[:at]) && !otherwiseRE.MatchString(cl) {
				// ".all.each loads all of them into memory and the job
				// gets OOM-killed", "plain `pnpm test` starts the watch
				// mode", "un add_column normale ci blocca la tabella":
				// the span is what the clause says does the harm.
				if f := harmRE.FindStringIndex(cl); f != nil && f[0] > at && !wouldRE.MatchString(cl[at:f[0]]) {
					prohibited = true
				}
			}
			out = append(out, signature{text: s, prohibited: prohibited})
		}
		for _, m := range backtickRE.FindAllStringSubmatchIndex(cl, -1) {
			add(cl[m[2]:m[3]], m[0], true)
		}
		rest := backtickRE.ReplaceAllStringFunc(cl, func(m string) string { return strings.Repeat(" ", len(m)) })
		for _, m := range codeTokenRE.FindAllStringIndex(rest, -1) {
			if m[0] > 0 && (textutil.IdentByte(rest[m[0]-1]) || strings.IndexByte("-@", rest[m[0]-1]) >= 0) {
				// Inside a longer word: "dagster-dev@gridwise-dev.iam...".
				continue
			}
			tok, at := rest[m[0]:m[1]], m[0]
			if w, flag, ok := strings.Cut(tok, " "); ok && strings.HasPrefix(strings.TrimSpace(flag), "-") && proseBeforeFlag[strings.ToLower(w)] {
				// "only ever runs with --readonly": the flag, not the word
				// of prose before it.
				tok, at = strings.TrimSpace(flag), at+len(tok)-len(strings.TrimSpace(flag))
			}
			if !(strings.Count(tok, ".") == 1 && looksLikeFileOrHost(tok)) && !productNames[tok] {
				add(tok, at, false)
			}
		}
		// "niet met gcloud run services update of gcloud sql instances
		// patch": a command named in prose, a known CLI and two or three
		// subcommand words.
		for _, m := range proseCommandRE.FindAllStringSubmatchIndex(rest, -1) {
			words := strings.Fields(rest[m[4]:m[5]])
			n := 0
			for n < len(words) && n < 3 && !proseStop[words[n]] {
				n++
			}
			if n >= 2 {
				add(rest[m[2]:m[3]]+" "+strings.Join(words[:n], " "), m[0], false)
			}
		}
		if neg {
			for _, m := range bannedUseRE.FindAllStringSubmatchIndex(rest, -1) {
				banned = append(banned, signature{text: rest[m[2]:m[3]], prohibited: true})
			}
			// "no float", "never any": a type or keyword of a programming
			// language, written as a plain word, is that code.
			for _, m := range plainWordRE.FindAllStringIndex(rest, -1) {
				// "kein Double für Geld": a type named as a noun.
				if w := strings.ToLower(strings.TrimSuffix(rest[m[0]:m[1]], "s")); codeWords[w] && !seen[w] {
					seen[w] = true
					out = append(out, signature{text: w, prohibited: true, weak: true})
				}
			}
			// "this is Oracle — there's no LIMIT": a SQL keyword of one
			// dialect, written in capitals, is that SQL.
			for _, m := range capsWordRE.FindAllStringIndex(rest, -1) {
				if w := rest[m[0]:m[1]]; sqlDialectWords[strings.ToLower(w)] && !seen[w] {
					// With the space a clause puts after it: the keyword
					// in SQL ("LIMIT 25", "limit 25"), not a method of a
					// query builder (".limit(50)").
					seen[w] = true
					out = append(out, signature{text: w + " ", prohibited: true, weak: true})
				}
			}
		}
	}
	// "we moved from jest to vitest", "jest is gone": the code forms of
	// what the project no longer has are prohibited.
	// (A form the sentence also names, as advised by its clause, is
	// prohibited: "the ObservableObject/@Published rule is gone".)
	for _, name := range replacedNames(text) {
		for _, f := range replacedForms(name) {
			if i := slices.IndexFunc(out, func(s signature) bool { return s.text == f }); i >= 0 {
				out[i].prohibited, out[i].weak = true, false
			} else if !seen[f] {
				seen[f] = true
				out = append(out, signature{text: f, prohibited: true})
			}
		}
	}
	// "Do not use requests in this codebase ... a hung requests.get":
	// the package itself is banned, so importing or installing it is the
	// prohibited thing, when the lesson also writes it as code (a call or
	// selector of it, a code span).
	for _, b := range banned {
		if seen[b.text] || stopWords.Has(b.text) {
			continue
		}
		asCode := strings.Contains(text, "`"+b.text) || strings.Contains(text, " "+b.text+".") && selectorAfter(text, b.text+".")
		for _, sg := range out {
			asCode = asCode || sg.prohibited && strings.HasPrefix(sg.text, b.text+".")
		}
		if asCode {
			seen[b.text] = true
			out = append(out, b)
		}
	}
	return out
}

// placeholderRE is a placeholder in a command a lesson writes: <gem>,
// <name>, {service}, $NAME.
var placeholderRE = textutil.Lazy(`<[A-Za-z][\w -]*>|\{[a-z][\w-]*\}|\$[A-Z][A-Z_]+\b`)

// selectorAfter reports whether prefix ("requests.") is followed in text by
// a name somewhere (requests.get): the prefix is then a package in use.
func selectorAfter(text, prefix string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], prefix)
		if j < 0 {
			return false
		}
		j += i + len(prefix)
		if j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z') {
			return true
		}
		i = j
	}
}

// codeWords are language types and keywords that a lesson writes as plain
// words ("no floats near money", "never use any"): in a negated clause they
// are the code it prohibits.
// ("any" is left out: it is an everyday word first.)
var codeWords = map[string]bool{"float": true, "double": true, "eval": true, "goto": true, "unsafe": true, "var": true,
	"f32": true, "f64": true, "float32": true, "float64": true}

var plainWordRE = textutil.Lazy(`\b[A-Za-z][a-z0-9]{2,7}\b`)

// capsWordRE is a word in capitals; sqlDialectWords are the SQL keywords,
// types and functions one database has and another lacks.
var capsWordRE = textutil.Lazy(`\b[A-Z][A-Z_]{2,15}\b`)

var sqlDialectWords = map[string]bool{"limit": true, "offset": true, "top": true, "rownum": true, "ilike": true, "returning": true,
	"upsert": true, "serial": true, "autoincrement": true, "auto_increment": true, "nvarchar": true, "jsonb": true, "nolock": true,
	"group_concat": true, "string_agg": true, "isnull": true, "nvl": true, "ifnull": true, "sysdate": true, "getdate": true}

// bannedUseRE is "use X" in a negated clause: the X a lesson bans.
var bannedUseRE = textutil.Lazy(`(?:^|[^\p{L}])(?:use|using|uses|import|importing|verwende|benutze|usar|uses|utilise|utiliser|используй|использовать)\s+([a-z][a-z0-9_-]{2,30})(?:[^\p{L}.(]|$)`)

// productNames are CamelCase words that name a product, not code.
var productNames = map[string]bool{"GitHub": true, "GitLab": true, "JavaScript": true, "TypeScript": true, "PostgreSQL": true,
	"MySQL": true, "MongoDB": true, "YouTube": true, "LinkedIn": true, "PowerShell": true, "WordPress": true, "OpenAI": true,
	"ChatGPT": true, "DynamoDB": true, "BigQuery": true, "CloudFront": true, "CircleCI": true, "DevOps": true, "FastAPI": true,
	"NodeJs": true, "GraphQL": true, "CodeRabbit": true, "ClickHouse": true, "DataDog": true, "PagerDuty": true, "VsCode": true}

// revokeRE takes back what follows: "forget the", "no longer"; group 1
// is a negation right before it ("don't forget the"), which keeps it.
var revokeRE = textutil.Lazy(`(?i)(\b(?:don'?t|do not|never)\s+)?\b(?:forget (?:the|about|that)|no longer|not anymore)\b`)

// droppedRE opens a negation that reports a removal ("we dropped X",
// "removed", "deprecated"), whose object ends at the next comma.
var droppedRE = textutil.Lazy(`(?i)^\W?(?:dropped|removed|deprecated|replaced|got rid of)\b`)

// rememberRE is "don't forget", "never forget": advice, not a negation.
var rememberRE = textutil.Lazy(`(?i)^\W?(?:don'?t|do not|never)\s+forget\b`)

// polarity tells whether a span whose clause reads before as before is
// prohibited: the last polarity word before it decides ("always an
// integer `amount_cents` column, never a FloatField": amount_cents is
// advised), else the clause's (neg: "`rm -rf` is never ok").
func polarity(before string, neg bool) bool {
	last, lastNeg := -1, false
	for _, m := range negRE.FindAllStringIndex(before, -1) {
		last, lastNeg = m[0], true
	}
	if last >= 0 && lastNeg && droppedRE.MatchString(before[last:]) && strings.ContainsAny(before[last:], ",:;") {
		// "we dropped black on monday, ruff does the formatting now:
		// `ruff format`": what was dropped ends at the comma; what
		// follows replaces it.
		return false
	}
	if strings.Contains(before, "orget") || strings.Contains(before, "longer") || strings.Contains(before, "anymore") {
		if last >= 0 && rememberRE.MatchString(before[last:]) {
			lastNeg = false // "don't forget the `--frozen-lockfile`"
		}
		// "forget the rubocop -a thing from before": a revoked
		// instruction is no longer advised ("don't forget the
		// --frozen-lockfile" still is), up to the next comma ("...,
		// it's `standardrb --fix` now").
		for _, m := range revokeRE.FindAllStringSubmatchIndex(before, -1) {
			if m[2] < 0 && m[0] > last && !strings.ContainsAny(before[m[1]:], ",;:—") {
				last, lastNeg = m[0], true
			}
		}
	}
	for _, m := range adviceRE.FindAllStringIndex(before, -1) {
		// "don't use", "never use": the negation governs the word, unless
		// a clause ends between them ("das reicht nicht, du musst").
		w := before[max(0, m[0]-12) : m[0]+1]
		if i := strings.LastIndexAny(w, ",;:.，；：。"); i >= 0 {
			w = w[i+1:]
		}
		if m[0] > last && !negates(w) {
			last, lastNeg = m[0], false
		}
	}
	if last < 0 {
		return neg
	}
	return lastNeg
}

// alternativeAfter reports whether the first negation of rest (a clause
// from a span on) comes in an alternative after it: ", or drop ...".
func alternativeAfter(rest string) bool {
	m := negRE.FindStringIndex(rest)
	if m == nil {
		return false
	}
	return orRE.MatchString(rest[:m[0]])
}

var orRE = textutil.Lazy(`(?i)(?:^|[\s,;])(?:or|oder|ou|o|of|或者|或|または|또는|или)\s*$`)

// failRE is a failure a clause reports; otherwiseRE the turn that makes
// it the consequence of not doing what precedes ("use X, otherwise the
// build fails").
var (
	failRE = textutil.Lazy(`(?i)\b(?:fails?|failed|failing|breaks|broke|crashes|crashed|errors out|blows up)\b`)
	// wouldRE: the harm is what a check would have caught
	// ("strong_migrations would have failed CI"), not what the span does.
	wouldRE = textutil.Lazy(`(?i)\b(?:would|will|should|could)\b`)
	// harmRE is harm a clause says something does, in a few languages.
	harmRE      = textutil.Lazy(`(?i)(?:^|[^\p{L}])(?:fails?|failed|breaks|broke|crashes|crashed|errors out|blows up|hangs|freezes|locks|blocks|leaks|gets killed|oom|oom-killed|corrupts|loads (?:all|every|the whole)|starts the watch(?:er)?|watch mode|never exits|times out|messed up|messes up|blocca|si blocca|rompe|sballare|bloquea|se cae|blockiert|bricht|plante|bloque|casse|trava|quebra|ломает|падает|блокирует)(?:[^\p{L}]|$)|壊れ|落ちる|卡死|崩溃|锁表|阻塞`)
	otherwiseRE = textutil.Lazy(`(?i)\b(?:otherwise|or else|else|unless|sonst|sinon|si no|de lo contrario|altrimenti|senão|иначе)\b|否则|不然|さもないと`)
)

// proseCommandRE is a known CLI named in prose with the words after it;
// proseStop ends its subcommands.
var (
	proseCommandRE = textutil.LazyOf(func() string {
		return `\b(` + strings.Join(proseCLIs, "|") + `)((?:\s+[a-z][a-z0-9-]*){2,5})`
	}).WithHint(namesProseCLI)
	// proseCLIs are the programs proseCommandRE knows by name.
	proseCLIs = []string{"gcloud", "kubectl", "helm", "terraform", "tofu", "aws", "az", "docker", "podman", "gh", "npm", "pnpm",
		"yarn", "uv", "poetry", "cargo", "mix", "bundle", "rails", "rake", "composer", "dotnet", "mvn", "gradle", "sls",
		"serverless", "eas", "fastlane", "flyctl", "vercel", "netlify", "wrangler", "pulumi", "cdk", "kamal", "sqlx",
		"alembic", "prisma", "dbt", "bq", "gsutil", "firebase", "heroku", "supabase"}
	proseStop = map[string]bool{"to": true, "the": true, "a": true, "an": true, "with": true, "in": true, "on": true, "for": true,
		"and": true, "or": true, "of": true, "it": true, "this": true, "that": true, "is": true, "are": true, "be": true, "from": true,
		"by": true, "as": true, "at": true, "into": true, "via": true, "was": true, "not": true, "never": true, "no": true,
		"of-": true, "en": true, "de": true, "und": true, "oder": true, "y": true, "o": true, "et": true, "ou": true, "e": true, "ni": true}
)

// proseBeforeFlag are words of prose that come before a flag named in a
// sentence ("with --readonly", "without --force", "always -n"): no
// program.
var proseBeforeFlag = map[string]bool{"with": true, "without": true, "using": true, "use": true, "pass": true, "add": true,
	"the": true, "a": true, "an": true, "always": true, "only": true, "never": true, "no": true, "not": true, "and": true,
	"or": true, "but": true, "plus": true, "via": true, "mit": true, "ohne": true, "con": true, "sin": true, "avec": true,
	"sans": true, "com": true, "sem": true, "senza": true, "met": true, "zonder": true, "без": true, "с": true}

// looksLikeFileOrHost tells "Chart.yaml" or "example.com" from a call.
func looksLikeFileOrHost(s string) bool {
	if strings.HasSuffix(s, "()") {
		return false
	}
	orig := filepath.Ext(s)
	ext := strings.ToLower(orig)
	switch ext {
	case ".log", ".now", ".println", ".printf", ".debug", ".info", ".warn", ".error", ".background", ".context":
		return false
	}
	// A capitalised last part is an exported name (errors.New, os.Exit),
	// not an extension or a top-level domain.
	return len(ext) >= 2 && len(ext) <= 5 && orig == ext
}

// lessonSignatures are the candidate's signatures: of the person's words
// when the file was read, else of the lesson and trigger fields.
func (c *candidate) lessonSignatures() []signature {
	if c.sigs == nil && c.pre != nil {
		if c.said != "" && c.said == c.pre.said {
			c.sigs = c.pre.sigsSaid
		} else if c.said == "" {
			c.sigs = c.pre.sigsLesson
		}
	}
	if c.sigs == nil {
		if c.said != "" {
			c.sigs = saidSignatures(c.excerpt, c.said)
		} else {
			c.sigs = signatures(c.lesson)
		}
		if c.sigs == nil {
			c.sigs = []signature{}
		}
	}
	return c.sigs
}

// containsSpan reports whether code contains span as code: case-sensitive
// for identifiers (case-insensitive for an all-caps span such as SQL),
// not inside a longer identifier or selector ("time.Now()" is not in
// "clock.time.Now()"'s ... but is in "t := time.Now()").
func containsSpan(code, span string) bool {
	prefix := false
	if p, ok := strings.CutSuffix(span, "…"); ok && len(p) >= 2 {
		// `gridwise-prod.marts...`: any name that begins so.
		span, prefix = p, true
	}
	hay, needle := code, span
	if strings.ToUpper(span) == span || strings.ToLower(span) == span && !strings.ContainsAny(span, "._$()") {
		hay, needle = strings.ToLower(code), strings.ToLower(span)
	}
	for i := 0; ; {
		j := strings.Index(hay[i:], needle)
		if j < 0 {
			return false
		}
		j += i
		before := byte(' ')
		if j > 0 {
			before = hay[j-1]
		}
		after := byte(' ')
		if k := j + len(needle); k < len(hay) {
			after = hay[k]
		}
		// A dotted span is not inside a longer selector; a bare name may
		// be selected ("FloatField" in "models.FloatField(...)").
		dotOK := before != '.' || !strings.Contains(needle, ".")
		if (!textutil.IdentByte(before) || !textutil.IdentByte(needle[0])) && dotOK && (prefix || !(textutil.IdentByte(needle[len(needle)-1]) && textutil.IdentByte(after))) {
			return true
		}
		i = j + 1
	}
}

// stripComments removes the comments of code in the file's language, so
// that a lesson about code does not fire on a comment that names it.
func stripComments(code, file string) string {
	ext := strings.ToLower(filepath.Ext(file))
	var line []string
	block := false
	switch ext {
	case ".py", ".sh", ".bash", ".rb", ".yaml", ".yml", ".toml", ".r", ".pl", ".mk":
		line = []string{"#"}
	case ".sql":
		line = []string{"--"}
	case ".go", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".java", ".kt", ".c", ".h", ".cc", ".cpp", ".hpp", ".rs", ".swift", ".cs", ".scala", ".php", ".dart":
		line, block = []string{"//"}, true
	default:
		return code
	}
	if block {
		code = blockCommentRE.ReplaceAllString(code, " ")
	}
	var b strings.Builder
	for _, ln := range strings.Split(code, "\n") {
		for _, m := range line {
			if i := commentStart(ln, m); i >= 0 {
				ln = ln[:i]
			}
		}
		b.WriteString(ln)
		b.WriteByte('\n')
	}
	return b.String()
}

var blockCommentRE = textutil.Lazy(`(?s)/\*.*?\*/`)

// commentStart is where a line comment starts, outside string literals.
func commentStart(ln, marker string) int {
	var quote byte
	for i := 0; i < len(ln); i++ {
		ch := ln[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'' || ch == '`':
			quote = ch
		case strings.HasPrefix(ln[i:], marker):
			if marker == "//" && i > 0 && ln[i-1] == ':' {
				continue // a URL
			}
			return i
		}
	}
	return -1
}

// anchorCandidates is how many candidates a call's code anchors retrieve.
const anchorCandidates = 60

// sigAnchor is what the activation index files a prohibited signature
// under: its longest run of identifier characters, lower case
// ("bigquery.Client()": "bigquery"; "as!": "as"), "" when it has none of
// two characters or more.
func sigAnchor(sig string) string {
	best := ""
	identRuns(sig, func(run string) {
		if len(run) > len(best) {
			best = run
		}
	})
	if len(best) < 2 {
		return ""
	}
	return strings.ToLower(best)
}

// identRuns calls f with each maximal run of identifier characters of text.
func identRuns(text string, f func(string)) {
	for i := 0; i < len(text); {
		if !textutil.IdentByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && textutil.IdentByte(text[j]) {
			j++
		}
		f(text[i:j])
		i = j
	}
}

// anchors are the anchors of the record's prohibited signatures.
func (r *candRecord) anchors() []string {
	var out []string
	for _, rs := range [][]sigRecord{r.SigsSaid, r.SigsLesson} {
		for _, s := range rs {
			if a := sigAnchor(s.S); s.P && a != "" && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	// The refused command, by its key: a call that runs it again finds
	// the lesson whatever its type (matchCommand).
	for _, k := range refusedKeys(r.Trigger) {
		if a := commandAnchor(k); !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// codeAnchors are the anchors of the command's keys (commandKeys, which
// the cue holds already) and the identifier runs of the code an edit
// writes and of the command a call runs, lower case, each once: the
// anchors a lesson about that code or command is filed under.
func codeAnchors(written, command string, keys []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range keys {
		if a := commandAnchor(k); !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, text := range []string{written, command} {
		identRuns(text, func(run string) {
			if len(run) >= 2 && len(run) <= 64 {
				if w := strings.ToLower(run); !seen[w] {
					seen[w] = true
					out = append(out, w)
				}
			}
		})
	}
	return out
}
