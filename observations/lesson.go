package observations

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/textutil"

	"github.com/kbmem/kb/internal/lexicon"
)

// ---------------------------------------------------------------------------
// Lesson wording.

var ackTailRE = textutil.Lazy(`(?i)[,;]?\s*(otherwise|but otherwise|else)\s+(gtg|good to go|lgtm|all good|looks good|fine|ok|okay|good)\W*$`)

var notWantMyRE = textutil.Lazy(`(?i)^i\s+(?:don'?t|dont|do not|never)\s+want\s+(?:my|our)\s+(.{2,60}?)\s+to\s+`)

var likeToBeRE = textutil.Lazy(`(?i)^i'?d\s+(actually\s+|really\s+)?(like|love|prefer)\s+(.{3,60}?)\s+to\s+be\s+`)

// romanceNoRE is a Spanish, Italian or Portuguese sentence that opens
// with "no" before a verb or pronoun ("no seria mejor que ...", "no è
// così"): the English "no X" ("no hardcoded hosts") does not apply.
var romanceNoRE = textutil.Lazy(`(?i)^no\s+(?:es|está|esta|están|estan|hay|ser[ií]a|sé|se|me|te|lo|la|le|les|nos|quiero|puedo|puedes|puede|creo|funciona|sirve|va|tiene|hace|hagas|era|fue|ha|he|hemos|debe|debes|deber[ií]a|è|c'è|ci|mi|ti|si|posso|voglio|funziona|sono|quero|pode|tem|faz|foi|vai|estou|sei)(?:\s|$|[,.!?])`)

// romanceWords are function words of Spanish, Portuguese and Italian
// that English does not use.
var romanceWords = map[string]bool{"de": true, "la": true, "el": true, "los": true, "las": true, "que": true, "con": true,
	"en": true, "y": true, "para": true, "por": true, "del": true, "una": true, "ni": true, "desde": true, "su": true,
	"sus": true, "il": true, "di": true, "che": true, "per": true, "non": true, "da": true, "em": true, "os": true,
	"não": true, "é": true, "è": true, "lo": true, "le": true, "gli": true, "nel": true, "della": true, "dos": true,
	"das": true, "com": true, "mas": true, "pero": true, "sin": true, "sem": true, "senza": true}

// romance reports whether sentence s reads as Spanish, Portuguese or
// Italian: two of its words are their function words. There "no" before
// a verb is the negation ("No cargues archivos con rutas absolutas"),
// not the English "no X" of a noun ("no hardcoded hosts").
func romance(s string) bool {
	n := 0
	for _, w := range strings.Fields(lower(s)) {
		if romanceWords[strings.Trim(w, ".,;:!?¿¡()\"'")] {
			if n++; n >= 2 {
				return true
			}
		}
	}
	return false
}

type rewrite struct {
	re  *textutil.LazyRE
	out string
}

var lessonRewrites = []rewrite{
	{textutil.Lazy(`(?i)^(please\s+)?(don'?t|do not)\s+(ever\s+)?`), "Do not "},
	{textutil.Lazy(`(?i)^(please\s+)?never\s+(ever\s+)?`), "Never "},
	{textutil.Lazy(`(?i)^(please\s+)?always\s+`), "Always "},
	{textutil.Lazy(`(?i)^we\s+(always\s+)?use\s+`), "Use "},
	{textutil.Lazy(`(?i)^we\s+always\s+`), "Always "},
	{textutil.Lazy(`(?i)^we\s+never\s+`), "Never "},
	// "we don't need to X" is "Do not X"; "we don't need the banner" is
	// "Do without the banner" (not "Do not need").
	{textutil.Lazy(`(?i)^(i\s+(don'?t|do not)\s+think\s+we\s+need|(we|you)\s+(don'?t|do not)\s+need)\s+to\s+`), "Do not "},
	{textutil.Lazy(`(?i)^(i\s+(don'?t|do not)\s+think\s+we\s+need|(we|you)\s+(don'?t|do not)\s+need)\s+`), "Do without "},
	{textutil.Lazy(`(?i)^we\s+(don'?t|do not)\s+`), "Do not "},
	{textutil.Lazy(`(?i)^i\s+(don'?t|do not)\s+want\s+(you\s+)?to\s+`), "Do not "},
	{textutil.Lazy(`(?i)^i\s+(don'?t|do not)\s+want\s+`), "Avoid "},
	{textutil.Lazy(`(?i)^(you|we)\s+(should|must|need to|have to|can|could)\s+(just\s+)?`), ""},
	{textutil.Lazy(`(?i)^(could|can|couldn'?t|can'?t)\s+we\s+(just\s+)?`), ""},
	{textutil.Lazy(`(?i)^should(n'?t)?\s+we\s+(just\s+)?`), ""},
	{textutil.Lazy(`(?i)^why\s+not\s+(just\s+)?`), ""},
	{textutil.Lazy(`(?i)^(how|what)\s+about\s+`), "Consider "},
	{textutil.Lazy(`(?i)^do\s+we\s+(even|really)\s+need\s+`), "Check whether we need "},
	{textutil.Lazy(`(?i)^i'?d\s+(actually\s+|really\s+)?(like|love|prefer|want)\s+(you\s+)?(to\s+)?`), ""},
	{textutil.Lazy(`(?i)^i\s+think\s+(we|you)\s+(should|need to|must)\s+`), ""},
	{textutil.Lazy(`(?i)^i\s+(would\s+)?(prefer|want)\s+(you\s+)?(to\s+)?`), ""},
	{textutil.Lazy(`(?i)^let'?s\s+`), ""},
	{textutil.Lazy(`(?i)^(please|just|instead)[,]?\s+`), ""},
	{textutil.Lazy(`(?i)^no\s+`), "Do not use "},
}

// lessonFrom turns what the person said into an instruction (the corrected
// direction) and, when they said why, a consequence.
func lessonFrom(text string) (lesson, consequence string) {
	text = cleanHuman(text)
	var parts, reasons, context, questions, refusals []string
	for i, s := range sentences(text) {
		if i > 4 {
			break // what follows the first sentences is usually pasted material
		}
		orig := s
		s = stripLead(s, i == 0)
		s = ackTailRE.ReplaceAllString(s, "")
		if s == "" {
			continue
		}
		if m := becauseRE.FindStringSubmatch(s); m != nil && len(strings.Fields(m[2])) >= 3 && isDirective(s[:len(s)-len(m[0])]) {
			reasons = append(reasons, strings.TrimRight(m[2], "."))
			s = strings.TrimSpace(s[:len(s)-len(m[0])])
		}
		question := strings.HasSuffix(strings.TrimSpace(orig), "?")
		switch {
		case (isDirective(s) || !question && statesRule(s)) && !(consequenceStartRE.MatchString(s) && !directiveAnyRE.MatchString(s)) &&
			!(question && requestRE.MatchString(s) && len(parts) > 0):
			parts = append(parts, phrase(s))
		case question:
			questions = append(questions, phrase(s))
		case (reasonCueRE.MatchString(s) || consequenceStartRE.MatchString(s)) && len(strings.Fields(s)) >= 3:
			reasons = append(reasons, strings.TrimRight(s, "."))
		case i <= 1 && Approves(s):
			// "Looks fine logic-wise.": approval of the work, no context
			// of the instruction after it.
		case i <= 1 && bareRefusal(s):
			// "So geht das nicht.", "Así no.": the refusal says only that
			// the work was wrong; what was wrong and what to do come after.
			refusals = append(refusals, phrase(s))
		case i <= 1:
			// Context the person gave ("This project is managed with uv")
			// stays with the instruction it explains.
			context = append(context, phrase(s))
			parts = append(parts, phrase(s))
		}
	}
	if len(parts) == len(context) && len(refusals) > 0 {
		// Nothing else was said: the refusal is the person's word.
		context = append(refusals, context...)
		parts = append(refusals, parts...)
	}
	if len(parts) == len(context) {
		// No instruction at all: the statements from the first that
		// negates ("I'm not a fan of X" says what was wrong, the one after
		// it what is done instead), else a question the person asked,
		// else the statements, are the lesson.
		neg := -1
		for i, c := range context {
			if lexicon.CueNegation.In(lower(c)) {
				neg = i
				break
			}
		}
		switch {
		case neg >= 0:
			parts = context[neg:]
		case len(questions) > 0:
			parts = questions[:1]
		case len(context) > 0:
			parts = context
		}
	}
	if f := fitting(parts, 320); len(context) > 0 && slices.ContainsFunc(parts[len(f):], func(p string) bool { return !slices.Contains(context, p) }) {
		// An instruction would not fit after the context (the context
		// alone fills the lesson, or the instead-part comes after a long
		// explanation): the instructions go in, and the context is kept as
		// far as it fits, its first sentence last to go. What it leaves
		// out is the why: the consequence keeps it.
		var dropped []string
		for i := len(parts) - 1; i >= 0 && joinedLen(parts) > 320; i-- {
			if slices.Contains(context, parts[i]) {
				dropped = append([]string{strings.TrimRight(parts[i], ".。")}, dropped...)
				parts = slices.Delete(parts, i, i+1)
			}
		}
		reasons = append(dropped, reasons...)
	}
	lesson = joinLimited(parts, 320)
	consequence = joinLimited(reasons, 200)
	return lesson, strings.TrimRight(consequence, ".")
}

// stripLead removes interjections ("no,", "ugh,", "absolutely not,") at the
// start of a sentence. "no" is kept when it starts a noun phrase ("no
// hardcoded hosts").
// Approves reports whether sentence s only approves of what the agent did
// ("Looks fine logic-wise.", "ok that one's fine, it went to your local
// db"): thanks or approval after any interjection, and no instruction.
// It is no part of a lesson that follows it.
func Approves(s string) bool {
	s = stripLead(s, true)
	return lexicon.CueAck.AtStart(lower(s)) && !isDirective(s)
}

func stripLead(s string, first bool) string {
	for range 4 {
		m := leadRE.FindStringSubmatchIndex(s)
		if m == nil {
			break
		}
		word := strings.ToLower(s[m[2]:m[3]])
		rest := s[m[1]:]
		if strings.HasPrefix(word, "no") && word != "nope" && !strings.ContainsAny(s[m[3]:m[1]], ",.!:;—–-") {
			// "no X": a prohibition unless X is a pronoun or verb.
			nw := firstWords(rest, 1)
			if len(nw) == 1 && !isPronounOrVerb(nw[0]) && !lexicon.CueStop.AtStart(lower(rest)) {
				break // "no aspetta", "no espera": a "wait" after it is no object
			}
		}
		if word == "so" || word == "well" || word == "actually" || word == "again" {
			// Only as an interjection: "so," / "actually,".
			if !strings.ContainsAny(s[m[3]:m[1]], ",") && !first {
				break
			}
		}
		if (word == "stop" || word == "look" || word == "listen" || word == "wait") && !strings.ContainsAny(s[m[3]:m[1]], ",.!:;—–-") {
			break // "stop doing X", "look at X", "wait for X": the instruction itself
		}
		s = rest
	}
	return strings.TrimSpace(stripOtherLead(s))
}

// stripOtherLead removes what opens a message in any language without
// being its instruction: a stop word set off by punctuation ("Attends,",
// "Warte,", "等等，", "ちょっと待って、") and then the agent addressed by
// name ("DeepSeek,", "Claude,").
func stripOtherLead(s string) string {
	low := lower(s)
	if i, j := lexicon.CueStop.Span(low); i == 0 && j < len(low) {
		rest := strings.TrimLeft(s[j:], " ")
		if r, size := utf8.DecodeRuneInString(rest); size > 0 && strings.ContainsRune(",，、.!！:：;—–", r) {
			s = strings.TrimLeft(rest[size:], " ")
		}
	}
	if m := vocativeRE.FindStringIndex(s); m != nil {
		s = s[m[1]:]
	}
	return s
}

// vocativeRE is the agent addressed by name at the start of a message.
var vocativeRE = textutil.Lazy(`(?i)^(?:claude|codex|gemini|deepseek|gpt|chatgpt|cursor|aider|copilot|qwen|kimi|grok|mistral|llama)\s*[,，、:：]\s*`)

func isPronounOrVerb(w string) bool {
	switch strings.Trim(w, ",.!?") {
	case "i", "you", "we", "that", "this", "it", "they", "don't", "dont", "do", "never", "use", "please", "not", "stop",
		"just", "the", "a", "an", "need", "way", "thanks", "worries", "problem", "wait", "actually", "absolutely",
		"no", "nope", "nah": // "no no. don't ...": the interjection said twice, no object

		return true
	}
	return false
}

// noInterjectionRE is a "no" that answers, not one that forbids: before a
// subject, a request word or a verb of telling ("no I mean", "no just
// X", "no explain it again").
var noInterjectionRE = textutil.Lazy(`(?i)^no\s+(?:just|please|i|i'm|it|it's|that|this|we|you|analy[sz]e|tell|give|explain|describe|summari[sz]e|show|read|look)\b`)

// phrase rewrites one sentence as an imperative instruction.
func phrase(s string) string {
	s = strings.TrimSpace(s)
	if m := likeToBeRE.FindStringSubmatch(s); m != nil {
		s = m[3] + " should be " + s[len(m[0]):]
	}
	if m := notWantMyRE.FindStringSubmatch(s); m != nil {
		// "I don't want my dev env to be a hot pot": the person's setup,
		// said how it must not be.
		s = "Do not let the " + m[1] + " " + s[len(m[0]):]
	}
	if noInterjectionRE.MatchString(s) {
		// "no analyse the project and tell about the stack", "no I mean
		// the tests": "no" turns down what came before; the rest is the
		// instruction, no prohibition of it.
		s = strings.TrimSpace(s[len("no"):])
	}
	for _, rw := range lessonRewrites {
		if loc := rw.re.FindStringIndex(s); loc != nil && !(rw.out == "Do not use " && (romanceNoRE.MatchString(s) || romance(s))) {
			s = rw.out + s[loc[1]:]
			break
		}
	}
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") {
		s = strings.TrimRight(s, "?") + "."
	}
	s = strings.TrimSuffix(s, " then.")
	s = strings.TrimRight(s, ":：,，、;； ")
	s = capitalize(s)
	if s != "" && !strings.ContainsAny(s[len(s)-1:], ".!)`\"'") && !strings.HasSuffix(s, "。") && !strings.HasSuffix(s, "！") {
		s += "."
	}
	return s
}

// bareRefusal reports whether sentence s only refuses, in any language:
// a negation of "that" or "so" in at most five words with no name, path
// or code in them ("So geht das nicht.", "Así no.", "Not like this.");
// "Not from your machine." says what was wrong and is no bare refusal.
// The instruction, if any, is in the sentences after it.
func bareRefusal(s string) bool {
	low := lower(s)
	if wordCount(s) > 5 || !lexicon.CueNegation.In(low) || !(lexicon.CueReferent.In(low) || mannerRE.MatchString(low)) || isDirective(s) {
		return false
	}
	for _, w := range strings.Fields(s) {
		w = strings.TrimRight(w, ".,!?;:。！？")
		if codeish(w) || strings.ContainsAny(w, "`/.") || lexicon.NameLike(w) {
			return false
		}
	}
	return true
}

// mannerRE is "so", "like that" in the languages of the cues.
var mannerRE = textutil.Lazy(`(?:^|[^\p{L}])(?:so|así|assim|così|comme ça|как|так|takhle|tak)(?:[^\p{L}]|$)|这样|那样|这么|そう|こう|이렇게|그렇게`)

// joinedLen is the width of parts joined by spaces.
func joinedLen(parts []string) int {
	n := 0
	for _, p := range parts {
		n += width(p) + 1
	}
	return n - 1
}

// width is how much of a lesson's room s takes, about in proportion to
// the tokens it costs: a rune of a Han, kana or Hangul script counts three
// (one such character is about a token, as three or four Latin letters
// are), any other rune one. Bytes made Cyrillic, Greek or Arabic text,
// two bytes a letter, lose half its room.
func width(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x80 && (lexicon.IsCJK(r) || unicode.Is(unicode.Hangul, r)) {
			n += 3
		} else {
			n++
		}
	}
	return n
}

func joinLimited(parts []string, n int) string {
	return shorten(strings.Join(fitting(parts, n), " "), n)
}

// fitting are the first parts that fit in width n joined (at least one).
func fitting(parts []string, n int) []string {
	size := 0
	for i, p := range parts {
		w := width(p)
		if i > 0 && size-1+w > n {
			return parts[:i]
		}
		size += w + 1
	}
	return parts
}

// ---------------------------------------------------------------------------
// Lessons that stand alone.

// correctionLesson words the lesson of correction u about call (-1 when no
// call is known): the person's instruction with its instead-part, its
// referents ("that", "it", "there") tied to what the agent did, pasted
// output left out, and no markup. A terse redirect ("cancel", "取消") or a
// failure report without an instruction becomes an instruction built from
// the structure: what was refused or what failed.
func correctionLesson(tl *timeline, u *utterance, call int, failure bool) (lesson, consequence, typed string) {
	if failure && u.pasted != "" && pasteLeadIn(u.text) {
		// "A couple of tests are unhappy now:" and the output: the lead-in
		// is the person's report; what the prose test kept of the paste is
		// not an instruction.
		v := *u
		v.text, _, _ = strings.Cut(strings.TrimSpace(u.text), "\n")
		if i := strings.IndexAny(v.text, ":："); i >= 0 {
			v.text = v.text[:i]
		}
		u = &v
	}
	lesson, consequence = lessonFrom(u.text)
	lesson, consequence = cleanMarkup(lesson), cleanMarkup(consequence)
	objCall := call
	if lookedAt(tl, u, call) {
		objCall = -1 // what the agent proposed, not the file it looked at
	}
	obj := correctedObject(tl, u, objCall)
	low := lower(u.text)
	instructs := lesson != "" && (isDirective(u.text) || lexicon.CueInstead.In(low) || lexicon.CueStop.In(low) ||
		!failure && lexicon.CueNegation.In(low) || slices.ContainsFunc(sentences(u.text), func(s string) bool { return !isQuestion(s) && statesRule(s) }))
	said := shorten(strings.TrimRight(cleanMarkup(firstSentence(u.text)), " .。:："), 160)
	what := changeObject(tl, u)
	if a := proposalOf(tl.lastAgentText(u)); what == "the change" && call < 0 && a != "" {
		// A complaint about an answer in words: the answer is what fell
		// short, by its first informative sentence.
		what = "the answer " + quoteText(shorten(cleanMarkup(a), 80))
	}
	first := lower(firstSentence(u.text))
	swap := ""
	if !failure {
		swap = swapped(tl, u)
	}
	switch {
	case lexicon.CueYourself.In(low) && len(u.assistant) > 0 && handedBack(tl, u):
		// "hazlo tú": the agent handed back a command it could run.
		return "Run the commands yourself instead of asking the person to run them; the person said: " + quoteText(said) + ".", consequence, ""
	case failure && lexicon.CueDoubt.AtStart(first):
		// "Are you sure the HTML is the issue?": the agent stated more than
		// it had checked.
		return "Check a diagnosis or claim against the evidence before stating it (about " + what +
			"); the person asked: " + quoteText(said) + ".", consequence, ""
	case failure && lexicon.CueWhyYou.AtStart(first):
		// "Why did you delete the file?": the agent did what was not asked.
		return "Do not go ahead with " + what + " unasked; the person asked: " + quoteText(said) + ".", consequence, ""
	case failure && !instructs && lexicon.CueNo.AtStart(first):
		// "No, that's not what I meant": the work went another way than
		// the person's.
		return "Do not go ahead with " + what + " that way; the person said: " + quoteText(said) + ".", consequence, ""
	case failure && !instructs && lexicon.CueNeedless.In(first):
		// "この楕円の白枠は一切いらないね", "we don't need the banner":
		// the change added what the person does not want.
		return "Leave out of " + what + " what the person does not want; the person said: " + quoteText(said) + ".", consequence, ""
	case failure && !instructs && lexicon.CueDislike.In(first):
		// "Давай переделаем AlarmsLevelViewModel - мне не нравится этот
		// класс": the person does not like how the work went, which is no
		// report that it fails.
		return "Do not go ahead with " + what + " that way; the person said: " + quoteText(said) + ".", consequence, ""
	case failure && !instructs:
		if rule := shortfallRule(u.text); rule != "" {
			// "you are not adding tests": the person states the rule.
			return rule, consequence, ""
		}
		lesson = "Check that " + what + " really works before calling it done"
		if said != "" {
			lesson += FailureReported + quoteText(reportQuote(u.text, said, 160))
		}
		return lesson + ".", consequence, ""
	case swap != "":
		// 'Make this happen, but call the role "user" not "regular".
		// Also ...': the sentence of the swap is the lesson; the rest of
		// the message is the next task.
		return strings.TrimRight(swap, " .。") + " (about " + what + ").", consequence, ""
	case !failure && !instructs && isQuestion(u.text) && conceded(tl, u):
		// "Why is the list in both prompts?" - "You're right, that's
		// redundant": the question is the correction, and the agent's
		// answer says what was wrong.
		reply := shorten(strings.TrimSpace(cleanMarkup(firstSentence(tl.nextAgentText(u)))), 140)
		return "Rework " + what + " as the person questioned it: " + quoteText(shorten(strings.TrimSpace(cleanMarkup(firstSentence(u.text))), 160)) +
			"; the agent agreed: " + quoteText(strings.TrimRight(reply, " .。")) + ".", consequence, ""
	case !failure && !instructs && obj != "" && (len(u.rejected) > 0 || u.interrupted) && lexicon.CueBecause.AtStart(first):
		// "because LoginViewModel already exists", right after a refused
		// Write: why the call was wrong, which the lesson keeps with it.
		return "Do not go ahead with " + obj + "; the person's reason: " + quoteText(said) + ".", consequence, ""
	case wordCount(lesson) < 4 && obj != "":
		// "cancel", "undo that", "取消": the instruction is the structure.
		// The person's whole message is quoted, not its first sentence:
		// in "no. uv add. pip bypasses the lock" what to do instead comes
		// after the "no".
		whole := shorten(strings.TrimRight(cleanMarkup(textutil.OneLine(u.text)), " .。:："), 240)
		lesson = "Do not go ahead with " + obj + " unasked; the person said: " + quoteText(whole) + "."
		// The refused call is the action; the words after the first
		// sentence say what to do instead, and their actions are not the
		// corrected one.
		return lesson, consequence, firstSentence(u.text) + " " + consequence
	case obj != "" && hasReferent(lesson) && addsObject(obj, lesson):
		lesson = strings.TrimRight(lesson, ".。 ") + " (about " + obj + ")."
	}
	return lesson, consequence, ""
}

// correctedObject names what a correction is about: the refused or last
// call (its command or file), else the agent's last words.
func correctedObject(tl *timeline, u *utterance, call int) string {
	if call >= 0 {
		r := tl.rec(call)
		sum := callSummary(r)
		if r.Tool != "" && strings.HasPrefix(sum, r.Tool+" ") {
			return strings.ToLower(r.Tool[:1]) + r.Tool[1:] + " of " + strings.TrimPrefix(sum, r.Tool+" ")
		}
		return sum
	}
	if t := strings.TrimSpace(tl.lastAgentText(u)); t != "" {
		// The first informative sentence: "Certainly!" or "I understand."
		// names nothing.
		if st := proposalOf(t); wordCount(st) >= 5 && !strings.HasSuffix(st, "!") {
			return "the agent's proposal " + quoteText(shorten(cleanMarkup(st), 100))
		}
	}
	return ""
}

// hasReferent reports whether a lesson points at something it does not
// name ("revert that", "put it there"). Only its first sentence is read:
// a referent after it most often points back into the lesson ("all
// arithmetic goes through Money - it rounds in one place").
func hasReferent(s string) bool {
	return lexicon.CueReferent.In(indefiniteToRE.ReplaceAllString(lower(firstSentence(s)), "$1 "))
}

// indefiniteToRE is Russian's indefinite particle "-то" on a pronoun
// ("что-то", "какие-то", typed "каких то"): "some", no pointer back to
// anything ("то" alone is "that").
var indefiniteToRE = textutil.Lazy(`(что|кто|как|какой|какая|какое|какие|каких|каким|какими|какую|каком|где|когда|куда|откуда|почему|зачем|чей|чья|чьё|чьи)[- ]то(?:[^\p{L}]|$)`)

// addsObject reports whether naming obj after a lesson tells more than the
// lesson does: not a bare tool name ("apply_patch"), not code the lesson
// already quotes or names ("Adjust specs/plan.md so that it matches..."
// after a patch of specs/plan.md).
func addsObject(obj, lesson string) bool {
	spans := markupCodeRE.RE().FindAllString(obj, -1)
	if len(spans) == 0 {
		return strings.ContainsAny(strings.TrimSpace(obj), " \t")
	}
	low := strings.ToLower(lesson)
	for _, sp := range spans {
		if !strings.Contains(low, strings.ToLower(strings.Trim(sp, "`"))) {
			return true
		}
	}
	return false
}

func quoteText(s string) string { return "“" + s + "”" }

var (
	markupEmphRE   = textutil.Lazy(`\*\*|__|~~`)
	markupLeadRE   = textutil.Lazy(`(?m)^\s*(#{1,6}\s+|[-*+•]\s+|\d+[.)]\s+|>\s*)`)
	markupSingleRE = textutil.Lazy(`(^|\s)\*(\S[^*]*\S|\S)\*(\s|[.,;:!?]|$)`)
	markupCodeRE   = textutil.Lazy("`[^`\n]+`|\\b__[A-Za-z0-9]\\w*?__\\b")
	markupKeptRE   = textutil.Lazy("\x00[0-9]+\x00")
)

// inlineHeadingRE is a markdown heading marker after words on the same line.
var inlineHeadingRE = textutil.Lazy(`\s#{2,6}\s+\S`)

// cleanMarkup removes Markdown fragments from a title or lesson: emphasis
// markers, heading and bullet prefixes, quote markers, and a backtick
// left without its pair.
//
// Code is left as written: a code span and a dunder name (`__all__`,
// __init__) keep their underscores and stars.
func cleanMarkup(s string) string {
	var kept []string
	s = markupCodeRE.ReplaceAllStringFunc(s, func(c string) string {
		kept = append(kept, c)
		return "\x00" + strconv.Itoa(len(kept)-1) + "\x00"
	})
	if loc := inlineHeadingRE.FindStringIndex(s); loc != nil && loc[0] > 0 {
		// "... in spec.md ## 5. Technology Stack": a heading inside a
		// sentence starts a document the person pasted after their words.
		s = s[:loc[0]]
	}
	s = markupEmphRE.ReplaceAllString(s, "")
	s = markupLeadRE.ReplaceAllString(s, "")
	s = markupSingleRE.ReplaceAllString(s, "$1$2$3")
	if len(kept) > 0 {
		s = markupKeptRE.ReplaceAllStringFunc(s, func(m string) string {
			if i, err := strconv.Atoi(strings.Trim(m, "\x00")); err == nil && i < len(kept) {
				return kept[i]
			}
			return m
		})
	}
	if strings.Count(s, "`")%2 == 1 {
		i := strings.LastIndex(s, "`")
		s = s[:i] + s[i+1:]
	}
	return strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
}

// fillerRE opens an agent sentence that names nothing ("Thank you for
// providing the file.", "You're right, ...", "I apologize for the
// confusion.").
var fillerRE = textutil.Lazy(`(?i)^(thanks?\b|thank you\b|you'?re (absolutely )?right\b|you are (absolutely )?right\b|i apologi[sz]e\b|(my )?apologies\b|sorry\b|certainly\b|sure\b|of course\b|great\b|understood\b|i understand\b|i see\b|got it\b|ok(ay)?\b|perfect\b|excellent\b)`)

// proposalOf returns the first informative sentence of what the agent
// said: at least five words, no filler.
func proposalOf(t string) string {
	for _, x := range sentences(cleanHuman(t)) {
		x = strings.TrimLeft(x, "#*- ")
		if len(strings.Fields(x)) >= 5 && !strings.HasSuffix(x, "!") && !fillerRE.MatchString(x) {
			return x
		}
	}
	return ""
}

// shortfallRE finds the person saying what the agent keeps failing to do:
// "you are not adding tests", "you didn't run it", "you never check",
// "you forgot to update the docs".
var shortfallRE = textutil.Lazy(`(?i)\byou(?:\s+are|\s+were|'re)\s+not\s+(?:even\s+)?(\w+ing\b.*)|\byou\s+(?:did\s+not|didn'?t|do\s+not|don'?t|never)\s+(?:even\s+)?(\w.*)|\byou\s+forgot\s+(?:to\s+)?(\w.*)`)

// noRuleAfterYouRE: "you don't need to", "you don't have to" release the
// agent from something; "you don't know" states no rule.
var noRuleAfterYouRE = textutil.Lazy(`(?i)^(need|have|know|understand|see|get|like|want|mean|think|care|remember|worry)\b`)

// shortfallRule turns a statement of what the agent fails to do, in the
// first sentence of text, into the instruction it implies: "I suspect you
// are not adding tests or even trying to run the code" -> "Make sure you
// are adding tests and trying to run the code". Pasted material after a
// colon is dropped. "" when text states no such rule.
func shortfallRule(text string) string {
	first := cleanMarkup(firstSentence(cleanHuman(text)))
	m := shortfallRE.FindStringSubmatch(first)
	if m == nil {
		return ""
	}
	var head, rest string
	switch {
	case m[1] != "":
		head, rest = "Make sure you are ", m[1]
	case m[2] != "":
		head, rest = "Make sure you ", m[2]
	default:
		head, rest = "Do not forget to ", m[3]
	}
	if noRuleAfterYouRE.MatchString(rest) {
		return ""
	}
	if i := strings.IndexAny(rest, ":："); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.TrimRight(strings.TrimSpace(rest), ".!?,;")
	rest = strings.ReplaceAll(rest, " or even ", " and ")
	rest = strings.ReplaceAll(rest, " or ", " and ")
	if wordCount(rest) < 3 {
		return ""
	}
	return head + rest + "."
}

// reportQuote is what a failure lesson quotes of the person's report: the
// first sentence (said, as the lesson cut it), and the sentences after it
// while the quote stays within max bytes. A report's first sentence is
// often only the request ("you saw the errors, fix them", "hataları
// gördün ve bunları düzelt"); the next says what broke ("I clicked an
// element and the app crashed").
func reportQuote(text, said string, max int) string {
	ss := sentences(cleanHuman(text))
	if len(ss) < 2 || len(said) >= max {
		return said
	}
	q := strings.TrimSpace(cleanMarkup(ss[0]))
	if !strings.HasPrefix(q, said) || codeish(q) {
		return said
	}
	n := 0
	for _, x := range ss[1:] {
		x = strings.TrimSpace(cleanMarkup(x))
		if x == "" || len(q)+1+len(x) > max || codeish(x) {
			break
		}
		q += " " + x
		n++
	}
	if n == 0 {
		return said
	}
	return strings.TrimRight(q, " .。:：")
}

// codeish reports whether a sentence reads as code the person typed or
// pasted inline ("self.run_one(msg)", "x = 1;", "if not n == 1:"), not as
// prose: a quote adds no such sentence.
func codeish(s string) bool {
	return strings.ContainsAny(s, "(){}=;_<>") || strings.Contains(s, `"""`) || strings.Contains(s, "->")
}

// statesRule reports whether sentence s states what must or must not be
// done in words that bind any verb, in any cue language (lexicon.CueRule:
// "you should", "il faut", "нужно", "希望", "不允许", "해야"): a rule,
// where the English directive patterns see none.
func statesRule(s string) bool { return lexicon.CueRule.In(lower(s)) }
