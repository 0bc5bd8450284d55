package observations

import (
	"encoding/json"
	"github.com/kbmem/kb/internal/textutil"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/traces"
)

// ---------------------------------------------------------------------------
// Corrections.

// SignalFailure marks a correction read from the person reporting that
// what the agent just did does not work.
const SignalFailure = "failure"

type correctionExtractor struct{ tax *Taxonomy }

func (*correctionExtractor) Type() string { return TypeCorrection }

// correctionStrength judges whether utterance u redirects what the agent
// just did. It returns 0 when it does not, otherwise the confidence.
//
// The structure of the session is the main evidence and holds in any
// language: a refused call, an interrupt or an undo followed by the
// person's next message, or a failure reported right after the agent
// changed something. Words are light evidence on top (cues in several
// languages, internal/lexicon), and the English phrasings the extractor
// knew before still count.
func correctionStrength(tl *timeline, u *utterance, tax *Taxonomy) (float64, []string) {
	if u.command {
		return 0, nil // a command's arguments set a task
	}
	text := u.text
	low := lower(text)
	n := wordCount(text)
	refused := len(u.rejected) > 0 || u.reason || u.undone
	if n == 0 {
		return 0, nil
	}
	if u.cleared && !u.reason && (refused || u.interrupted) && !echoes(tl, u) && !relevant(tl, u, tax) {
		// "/undo", "/clear", then a new task about something else: the
		// conversation started over, and the message answers nothing
		// that was refused, undone or interrupted before it.
		v := *u
		v.rejected, v.undone, v.interrupted = nil, false, false
		u = &v
		refused = false
	}
	if n < 2 && !refused && !u.interrupted {
		return 0, nil
	}
	if closerRE.MatchString(text) || neverMindRE.MatchString(text) {
		return 0, nil
	}
	if !u.reason && n <= 4 && lexicon.CueContinue.AtStart(low) && !lexicon.CueNegation.In(low) {
		// "go ahead", "继续": carry on with what was proposed.
		return 0, nil
	}
	hadAction := len(u.calls) > 0 || len(u.assistant) > 0
	if !hadAction && !u.reason {
		return 0, nil
	}
	var signals []string
	if refused {
		signals = append(signals, SignalRejection)
	}
	if u.interrupted {
		signals = append(signals, SignalInterrupt)
	}
	stopped := u.interrupted
	strong := strongStartRE.MatchString(text) && !ohNoRE.MatchString(text)
	// "Attends, DeepSeek, utilise ...": the instruction after a stop word
	// and the agent's name.
	directive := isDirective(text) || isDirective(stripOtherLead(text))
	// A message that opens by asking for work and closes with a question
	// ("hide the column, and color the row background not the letters.
	// Is it not possible to group by default?") asks for the work first.
	question := isQuestion(text) && !(opensWithRequest(firstSentence(text)) && !isQuestion(firstSentence(text)))
	// Language-independent shapes: a negation or stop word at the start, a
	// redirect ("instead") anywhere, a negation anywhere.
	negStart := lexicon.CueNegation.AtStart(low) || lexicon.CueStop.AtStart(low)
	redirect := lexicon.CueInstead.In(low)
	negated := lexicon.CueNegation.In(low) || lexicon.CueStop.In(low)
	if strong || negStart || redirect {
		signals = append(signals, SignalExplicitCorrection)
	}
	// Answering a question the agent asked is not a correction.
	if !refused && yesNoRE.MatchString(text) && askedRE.MatchString(strings.TrimSpace(tl.lastAgentText(u))) &&
		len(u.calls) == 0 {
		return 0, nil
	}
	ack := acknowledges(low)
	switch {
	case u.reason:
		// The reason typed when refusing a call is the correction itself.
		return 0.9, signals
	case refused && (strong || directive || negStart || redirect || negated):
		return 0.9, signals
	case refused && !question && !ack && n <= 40:
		// A short message right after a refusal redirects the refused
		// action, whatever its words.
		return 0.75, signals
	case refused && !question && relevant(tl, u, tax):
		return 0.7, signals
	case stopped && !ack && (strong || negStart || redirect):
		return 0.85, signals
	case stopped && !ack && !question && negated && (n <= 25 || relevant(tl, u, tax)):
		return 0.75, signals
	case stopped && !ack && !question && (directive && n <= 8 || relevant(tl, u, tax) || n <= 25 && echoes(tl, u)):
		// After an interrupt, an instruction about what was interrupted
		// redirects it; a new task about something else does not.
		return 0.65, signals
	case strong && directive:
		return 0.8, signals
	case asksOtherLanguage(tl, u):
		// "หยุดตอบภาษาอังกฤษ! ... ตอบภาษาไทย" after an English reply,
		// "türkçe sorar mısın" after questions in English: the agent spoke
		// another language than the one the person works in, whatever
		// words and language they asked in, and as a question too.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case hadAction && !question && !ack && lexicon.CueNextTime.In(headOf(low, 300)) && (directive || n <= 60) &&
		(lexicon.CueReferent.In(low) || echoes(tl, u) || relevant(tl, u, tax)):
		// "la prochaine fois que tu fais ce résumé, ...", "以后所有的提交都…":
		// a rule for the work to come, said about the work just done.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case hadAction && !question && lexicon.CueTakeBack.In(headOf(low, 300)):
		// "forget what I said about cs-fixer, we're on Pint now", "wir
		// sind umgestiegen": right after the agent acted on what held
		// until now, the person takes it back and says what holds.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case hadAction && !question && !ack && n <= 25 && contrastNotIn(text):
		// "catch SuitableRepoNotFound not FileNotFoundError", "get not
		// post": right after the agent's work, which it should be, set
		// against what it is.
		return 0.65, withSignal(signals, SignalExplicitCorrection)
	case !question && !ack && prohibitsWritten(tl, u):
		// "不要在心法里写包工头... 太土了": a "don't" that names what the
		// agent just wrote, in any language.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case len(u.assistant) > 0 && !question && !ack && n <= 30 && lexicon.CueRemove.AtStart(low) && removesNamed(tl, u, low) &&
		lexicon.CueContinue.In(low):
		// "去除(web),开始执行": take out a part of what the agent just
		// proposed, which it named, and go ahead with the rest.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case !question && !ack && answersChange(tl, u, low, n):
		return 0.65, withSignal(signals, SignalExplicitCorrection)
	case hadAction && !question && !ack && (lexicon.CueRedo.AtStart(low) || lexicon.CueRedo.AtStart(stripLead(low, true)) ||
		onlyNotRE.MatchString(headOf(text, 200))):
		// "refais le résumé", "仅改左右边距，不影响上下": the work just done,
		// asked for again or cut back to what was asked, in any language.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case strong && len(u.calls) > 0 && relevant(tl, u, tax):
		return 0.7, signals
	case !question && !ack && revertsChange(tl, u, low):
		// "this is a terrible idea, please revert back to your previous
		// code", "撤销刚才的修改": the change just made, taken back by
		// words instead of aider's /undo or Claude Code's rewind.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case (holdOnRE.MatchString(text) || negStart && lexicon.CueStop.AtStart(low)) && directive && !question && (len(u.calls) > 0 || len(u.edited) > 0):
		// "wait, ...", "Attends, petite correction : utilise ...",
		// "等等，改成 ...": a stop word opens an instruction right after the
		// agent acted or changed files (aider's edits are no calls).
		return 0.65, withSignal(signals, SignalExplicitCorrection)
	case len(u.calls) > 0 && !question && praiseBut(low) && directive && relevant(tl, u, tax):
		// "nice speedup, but bookings is ~30M rows in prod ... always
		// build indexes concurrently": praise of the work, then what is
		// wrong with it and the rule, about what the agent just did.
		return 0.65, withSignal(signals, SignalExplicitCorrection)
	case moderateRE.MatchString(headOf(text, 300)) && directive && len(u.calls) > 0 &&
		!requestRE.MatchString(stripLead(text, true)) && relevant(tl, u, tax):
		return 0.65, withSignal(signals, SignalExplicitCorrection)
	case hadAction && !ack && unwantedWork(tl, u):
		// "sorry i dont want a new view, just want the default list
		// view": what the person does not want is what the agent just
		// made, named in its own words.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case len(u.assistant) > 0 && (lexicon.CueYourself.In(low) || lexicon.CueRequest.AtStart(low) && subjectYouRE.MatchString(headOf(low, 200))) && handedBack(tl, u):
		// "fais les commandes toi", "hazlo tú": the agent asked the
		// person to run what it can run itself.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case hadAction && !question && !ack && (namesRedoneCode(tl, u) || namesRetriedCommand(tl, u)):
		// ".all.each loads all of them into memory ... always
		// find_each", then the agent rewrites the file without it: the
		// person named code the agent had just written, and its next
		// version drops it, in whatever language they said why.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case hadAction && !question && !ack && prohibitsAgentCode(tl, u):
		// "the print goes: no print() in the backend", "不要用 `any`",
		// right after the agent wrote that code: the person names what the
		// agent just did and prohibits it, in whatever language.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case !question && rejectsProposal(tl, u):
		// "Предлагаю оставить чистый DOM вместо Angular. Хотите...?" -
		// "мне не нравится простой дом, я хочу именно ангуляр".
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case hadAction && !question && !ack && lexicon.CueConform.In(headOf(low, 300)) && namesAgentWork(tl, u):
		// "adjust specs/plan.md so that it matches the chosen stack",
		// right after the agent wrote that plan: what it produced strayed
		// from a reference the person names.
		return 0.65, withSignal(signals, SignalExplicitCorrection)
	case hadAction && !ack && swapped(tl, u) != "":
		// 'Make this happen, but call the role "user" not "regular"': a
		// name the agent used, swapped for the person's.
		return 0.7, withSignal(signals, SignalExplicitCorrection)
	case len(u.assistant) > 0 && !question && n <= 60 && stillWantRE.MatchString(headOf(text, 160)):
		// "But I still want to use the functions ..._for_response": the
		// person holds on to what the agent's proposal dropped.
		return 0.65, withSignal(signals, SignalExplicitCorrection)
	case !question && !ack && n <= 60 && fixWorkRE.MatchString(headOf(text, 120)) && changedSince(tl, u) && agentNamed(tl, u, headOf(text, 120)):
		// "fix the script, gdb should come from the toolchain, not the
		// system", "please fix the frontend UI so it does not use
		// Chart.js": right after a change, the person sends the agent
		// back to fix what it just made.
		return 0.65, withSignal(signals, SignalExplicitCorrection)
	case len(u.assistant) > 0 && !question && !ack && n <= 25 && !lexicon.CueContinue.In(low) &&
		(lexicon.CueOverride.In(low) || lexicon.CueYourself.In(low)) && lexicon.CueDeclined.AtStart(lower(headOf(tl.lastAgentText(u), 200))):
		// "Cannot comply: the protocol requires ..." - "violate it",
		// "hazlo, te lo pido yo": the person overrides the agent's refusal
		// to do what they asked.
		return 0.65, withSignal(signals, SignalExplicitCorrection)
	case !ack && conceded(tl, u):
		// "Why are the commands in both prompts?" - "You're right,
		// that's redundant": the agent granted the point, so the message
		// corrected its work, in whatever form and language it was put.
		return 0.65, append(signals, SignalConceded)
	}
	return 0, nil
}

// revertsChange reports whether the person asks, in the opening of low,
// to take back the change the agent made since they last spoke: a file it
// edited (aider's applied edits, an edit call) and a revert cue that no
// negation just before it turns around ("no need to undo it").
func revertsChange(tl *timeline, u *utterance, low string) bool {
	if !changedSince(tl, u) {
		return false
	}
	head := headOf(low, 300)
	i, _ := lexicon.CueRevert.Span(head)
	if i < 0 {
		return false
	}
	before := head[:i]
	if len(before) > 24 {
		before = before[len(before)-24:]
	}
	return !lexicon.CueNegation.In(before)
}

// stillWantRE is the person holding on to something against the agent's
// proposal: "but I still want to use X", "I still need X", "aber ich will
// trotzdem X", "pero igual quiero X", "mais je veux quand même X", "但我
// 还是想用X".
var stillWantRE = textutil.Lazy(`(?i)^\W*(?:(?:but|however|though|ok|okay)[,]?\s+)?i\s+(?:still|really still)\s+(?:want|need|prefer|would like)\b|^\W*(?:aber\s+)?ich\s+(?:will|möchte|brauche)\s+(?:trotzdem|immer noch)\b|^\W*(?:pero\s+)?(?:igual|todavía|aún)\s+(?:quiero|necesito)\b|^\W*(?:mais\s+)?je\s+(?:veux|voudrais)\s+(?:quand même|toujours)\b|^\W*(?:但|可是)?我还是(?:想|要)`)

// fixWorkRE opens a request to fix something named right after it: "fix
// the script", "please fix your change", "arregla el componente",
// "corrige le script", "behebe das", "修复一下这个脚本", "スクリプトを直して".
var fixWorkRE = textutil.Lazy(`(?i)^\W*(?:(?:ok|okay|now|please|pls|but)[,.]?\s+)*(?:fix|correct|repair)\s+(?:the|your|this|that|it|these|those)\b|^\W*(?:arregla|corrige|corrija|répare|repare|behebe|korrigiere|conserta|исправь|почини)\b|^\W*(?:修复|修一下|改一下|修正)|を?(?:直して|修正して)|고쳐`)

// changedSince reports whether the agent changed any file since the
// person last spoke: an edit call, or edits aider applied. Unlike
// changedFiles, which leaves the agent's memory out for failure reports,
// a skill or script under .claude/ counts: the person may ask to revert or
// fix it like any other change.
func changedSince(tl *timeline, u *utterance) bool {
	if len(u.edited) > 0 {
		return true
	}
	for _, c := range u.calls {
		if fs, ok := editedFiles(tl.rec(c)); ok && len(fs) > 0 {
			return true
		}
	}
	return false
}

// triedChange reports whether u follows work the person has had the
// agent's word on since: the agent worked (changed files, ran commands)
// before the person's previous message, and only replied to it ("the
// callback URL is set, log in again" - "но меня не залогинило"). The report
// is on that work.
func triedChange(tl *timeline, u *utterance) bool {
	if u.prev < 0 || len(u.calls) > 0 || len(u.assistant) == 0 {
		return false
	}
	p := &tl.utts[u.prev]
	return len(p.calls) > 0 || len(p.edited) > 0
}

// handedBack reports whether the agent's replies since the person's
// previous message hand work back to the person: a command to run, in a
// code span or block.
func handedBack(tl *timeline, u *utterance) bool {
	for _, a := range u.assistant {
		if strings.Contains(tl.rec(a).Text, "`") {
			return true
		}
	}
	return false
}

// subjectYouRE is "you" as the subject after a request verb, where
// Spanish and Portuguese put it to say "you do it" ("crea tu la rama",
// "crea una rama tú y shipea", "faz você"): tú, vos, você; tu only before
// an article, "y", "mismo" or the end of a clause (before a noun it is
// "your").
var subjectYouRE = textutil.Lazy(`(?:^|[^\p{L}])(?:tú|vos|você|voce|tu\s+mism[oa]|tu\s+(?:y|e|el|la|los|las|un|una|esto|eso|isso)\b|tu\s*(?:[,.!;]|$))`)

// unwantedWork reports whether the opening of u says the person does not
// want (or did not ask for) something the agent's last work names: a
// content word of the clause after the cue, up to its fifth word
// (agentNamed; for Chinese and Japanese, the two characters after it) in
// what the agent said or called.
func unwantedWork(tl *timeline, u *utterance) bool {
	head := lower(headOf(u.text, 160))
	_, j := lexicon.CueUnwanted.Span(head)
	if j < 0 {
		return false
	}
	work := lower(agentWork(tl, u))
	if work == "" {
		return false
	}
	rest := head[j:]
	if rs := []rune(strings.TrimSpace(rest)); len(rs) >= 2 && lexicon.IsCJK(rs[0]) {
		return strings.Contains(work, string(rs[:2]))
	}
	// The clause after the cue, up to its fifth word: "a new view" of
	// "i dont want a new view, just want ...".
	if i := strings.IndexAny(rest, ",;.!?"); i >= 0 {
		rest = rest[:i]
	}
	if f := strings.Fields(rest); len(f) > 5 {
		rest = strings.Join(f[:5], " ")
	}
	return agentNamed(tl, u, rest)
}

// nameSwapRE is a quoted name, a "not" or "instead of" in one of the cue
// languages, and another quoted name: `"user" not "regular"`, "`pnpm`
// statt `npm`", "「A」ではなく「B」", "“A”，而不是“B”".
var nameSwapRE = textutil.Lazy("(?i)[\"'`“‘«„「『]([^\"'`”’»“「」『』\n]{1,60})[\"'`”’»“」』]\\s*[,，、]?\\s*" +
	"(?:and not|not|instead of|rather than|nicht|statt|anstatt|anstelle von|en lugar de|en vez de|y no|no|et non|pas|au lieu de|e não|não|em vez de|" +
	"invece di|e non|non|а не|не|вместо|而不是|而非|不是|不要|ではなく|じゃなくて|でなく|대신|가 아니라|이 아니라)\\s*" +
	"[\"'`“‘«„「『]([^\"'`”’»“「」『』\n]{1,60})[\"'`”’»“」』]")

// swapped returns the sentence of u in which it swaps a name the agent
// used for another (nameSwapRE: the second name is in what the agent last
// said or called, the first is not the same), from the clause that holds
// the swap (after a "but": 'call the role "user" not "regular"'), or "".
func swapped(tl *timeline, u *utterance) string {
	head := headOf(u.text, 2000)
	if !nameSwapRE.MatchString(head) {
		return ""
	}
	theirs := lower(agentWork(tl, u))
	for _, sent := range sentences(head) {
		at := swapsNamed(theirs, sent)
		if at < 0 {
			continue
		}
		clause := sent
		if i, j := lexicon.CueContrast.Span(lower(sent)); i >= 0 && j <= at {
			clause = strings.TrimLeft(sent[j:], " ,，、")
		}
		return lexicon.Capitalize(clause)
	}
	return ""
}

// swapsNamed returns where sentence sent swaps a name that is in theirs
// (the agent's lower-cased work) for another, or -1.
func swapsNamed(theirs, sent string) int {
	for _, m := range nameSwapRE.FindAllStringSubmatchIndex(sent, 4) {
		want, was := lower(strings.TrimSpace(sent[m[2]:m[3]])), lower(strings.TrimSpace(sent[m[4]:m[5]]))
		if want != was && was != "" && lexicon.IndexWord(theirs, was) >= 0 {
			return m[0]
		}
	}
	return -1
}

// rejectsProposal reports whether u opens by disliking or refusing
// (lexicon.CueDislike) right after the agent proposed something and asked
// how to go on: the person refuses the proposal, not states a taste.
func rejectsProposal(tl *timeline, u *utterance) bool {
	if !lexicon.CueDislike.AtStart(lower(stripLead(u.text, true))) {
		return false
	}
	last := strings.TrimSpace(tl.lastAgentText(u))
	return last != "" && (askedRE.MatchString(tailOf(last, 600)) || lexicon.CueProposal.In(lower(headOf(last, 4000))))
}

// conceded reports whether the agent's first reply to u opens by granting
// the person's point or apologising (lexicon.CueConcede), after leading
// interjections ("Ah, you're right").
func conceded(tl *timeline, u *utterance) bool {
	reply := lower(headOf(tl.nextAgentText(u), 120))
	if lexicon.CueConcede.AtStart(reply) || lexicon.CueConcede.AtStart(stripLead(reply, false)) {
		return true
	}
	// "Isn't that solution a little slow?" - "Yes, querying on every
	// request is slow": a doubt the agent confirmed.
	return isQuestion(u.text) && lexicon.CueDoubtful.In(lower(headOf(firstSentence(u.text), 80))) && lexicon.CueYes.AtStart(reply)
}

// removesNamed reports whether what u takes out ("remove the (web)
// heading") is named in what the agent last said: a part of its work, not
// a new task about something else.
func removesNamed(tl *timeline, u *utterance, low string) bool {
	_, end := lexicon.CueRemove.Span(low)
	if end < 0 {
		return false
	}
	what := low[end:]
	if i := strings.IndexAny(what, ",.;:!?，。；：！？"); i >= 0 {
		what = what[:i]
	}
	// A content word or CJK bigram of it (topicTokens), not 这 or 个 alone.
	return sharesTopic(what, tl.lastAgentText(u))
}

// answersChange reports whether u (low: lower-cased, n words) answers
// the change just made by how it works now set against how the person
// wants it ("hiện tại là cứ 1 đơn vị retryDelayMs thì tự connect lại 1
// lần, tôi muốn giống redis ...") or by taking out what it points at
// ("remove all this graph, just have the explainable part", "去掉这些图表"):
// a correction of that change, whose trigger is the change.
func answersChange(tl *timeline, u *utterance, low string, n int) bool {
	return (n <= 60 && nowThenWanted(low) || n <= 30 && removesShown(low)) && changedSince(tl, u)
}

// nowThenWanted reports whether low tells how something is now
// (lexicon.CueCurrently) and, after that, how the person wants it
// (lexicon.CueWant).
func nowThenWanted(low string) bool {
	i, end := lexicon.CueCurrently.Span(low)
	return i >= 0 && lexicon.CueWant.In(low[end:])
}

// removesShown reports whether what a removal (lexicon.CueRemove, at the
// start of low) takes out is pointed at, not named: "remove all this
// graph", "drop these charts", "去掉这些", "これを消して", "이거 빼".
func removesShown(low string) bool {
	if lexicon.CueRemove.AtStart(low) {
		_, end := lexicon.CueRemove.Span(low)
		return shownRE.MatchString(low[end:])
	}
	// A verb-final language points first: "これを消して", "이거 빼".
	return shownBeforeRE.MatchString(low) && lexicon.CueRemove.In(headOf(low, 40))
}

var (
	// shownRE is a pointing word opening what a removal takes out.
	shownRE = textutil.Lazy(`^\s*(?:all\s+)?(?:this|these|that|those|diese[nrs]?|das|esto|este|esta|estos|estas|eso|ce|cet|cette|ces|это|этот|эту|эти|这个|这些|这|那个|那些|此)(?:\s|$|\pL)`)
	// shownBeforeRE is a pointing word before a verb-final removal: "これを
	// 消して", "이거 빼", "이 그래프 삭제해".
	shownBeforeRE = textutil.Lazy(`^\s*(?:これ|それ|この|その|이거|이것|저거|이\s|그\s)`)
)

// onlyNotRE narrows the work just done to what was asked: "only the left
// and right margins, not top and bottom", "edit just env.ts, not the .env
// file", "nur X, nicht Y", "仅改X，不影响Y".
var onlyNotRE = textutil.Lazy(`(?i)^\s*(?:\pL+\s+)?(?:only|just)\s(?:[^.?!]|\.\S){1,60}?,?\s(?:not|don'?t|do not|leave)\b|^\s*nur\s(?:[^.?!]|\.\S){1,60}?\snicht\b|^\s*(?:seulement|uniquement)\s(?:[^.?!]|\.\S){1,60}?\s(?:pas|ne)\b|^\s*(?:solo|sólo|únicamente)\s(?:[^.?!]|\.\S){1,60}?\sno\b|^\s*только\s(?:[^.?!]|\.\S){1,60}?\sне(?:\s|$)|^\s*(?:仅|只)[^，,。！？]{1,20}[，,]\s*(?:不|别|不要)|だけ[^。]{0,20}(?:ないで|しないで)|만\s?[^.]{0,20}(?:말고|않)`)

// praiseBut reports whether a message opens with praise of the work and
// turns on a contrast in its first sentence ("nice speedup, but ...",
// "super, aber ...", "不错，但是 ..."): what follows the "but" is what
// is wrong with it.
func praiseBut(low string) bool {
	first := firstSentence(low)
	if !lexicon.CueAck.AtStart(first) {
		return false
	}
	i, _ := lexicon.CueContrast.Span(first)
	return i > 0
}

// acknowledges reports whether the person approves of what was done
// ("perfect, thanks") without turning to a complaint ("great, but ...").
func acknowledges(low string) bool {
	head := low
	if len(head) > 80 {
		head = head[:80]
	}
	return lexicon.CueAck.In(head) && !lexicon.CueContrast.In(low) && !lexicon.CueFailure.In(low)
}

// failureAfterChange reports whether u tells the agent that what it just
// did does not work: the agent acted since the person last spoke, and the
// message reports a failure in words (in any of the lexicon's languages),
// pastes an error, or comes with the output of a run of the changed code
// the person had added to the conversation.
func failureAfterChange(tl *timeline, u *utterance) bool {
	// The person's first message answers the agent's work too when the
	// agent worked before it and the message is short: a session opened
	// by a slash command or a prompt template (spec-kit's
	// /speckit.implement) has no message of the person's before "the
	// homepage does not open". A long first message sets the task, even
	// after /init wrote a file ("... and fix the broken APIs").
	n := wordCount(u.text)
	if u.command || len(u.calls) == 0 && len(u.assistant) == 0 || u.prev < 0 && (len(u.calls) == 0 || n > 15) || n < 2 {
		return false
	}
	low := lower(u.text)
	if lexicon.CueContinue.AtStart(low) || lexicon.CueAck.AtStart(low) && !lexicon.CueContrast.In(low) {
		return false
	}
	if first := firstSentence(u.text); lexicon.CueNeedless.In(lower(first)) && needlessElsewhere(tl, u, first) {
		// "我觉得没有必要提示 Image A Face found 这些信息": no need for what
		// the change did not write, nor the agent said it did, asks for
		// new work; it reports no failure of the change.
		return false
	}
	head := low
	if len(head) > 400 {
		head = head[:400]
	}
	for i, x := range sentences(head) {
		// "it still fails?" reports a failure; "can we check whether it
		// fails?" later in a message asks for work.
		if lexicon.CueFailure.In(x) && (i == 0 || !isQuestion(x)) {
			return true
		}
	}
	if negatedResult(tl, u, head) || complaintAfterWork(tl, u, head) {
		return true
	}
	if u.shown && changedSince(tl, u) {
		// The person ran what the agent just changed and showed it the
		// output (aider's "Add command output to the chat? y"): the
		// output is their paste, and what they write with it, in any
		// language, reports how the change turned out.
		return true
	}
	if u.pasted == "" {
		return false
	}
	return lexicon.CueErrorWord.In(head) || errorOutputRE.MatchString(u.pasted) && (wordCount(u.text) <= 60 || pasteLeadIn(u.text))
}

// degreeAfterChange reports whether u, right after the agent worked, asks
// for more or less of what it just did ("move it a bit more to the left",
// "odsaď to trochu víc", "再大一点"): a short statement (not a question,
// not thanks) with a degree word in its first sentence. The change missed
// by a degree; the message is the correction. It is not required to name
// what the change touched: such tweaks rarely do ("a bit more", "trochu
// zvrchu"), and on the development sets the requirement lost every one
// of them while none of their non-corrections has this shape.
func degreeAfterChange(tl *timeline, u *utterance) bool {
	if u.prev < 0 || len(u.calls) == 0 && len(u.assistant) == 0 {
		return false
	}
	if n := wordCount(u.text); n < 2 || n > 25 || isQuestion(u.text) {
		return false
	}
	low := lower(u.text)
	ss := sentences(headOf(low, 300))
	return len(ss) > 0 && lexicon.CueDegree.In(ss[0]) && !acknowledges(low) && !lexicon.CueContinue.AtStart(low)
}

// proposalAfterChange reports whether u, right after the agent changed
// files, proposes another way of doing what it just did ("could we reuse
// session_nav.html for that?", "do we even need X then?", "könnten wir X
// verwenden?"): the decision extractor's reading of a proposal against the
// agent's way, about the change (it points back at it, or names a file or
// thing the change touched). One message is then both the correction and
// the decision.
func proposalAfterChange(tl *timeline, u *utterance, tax *Taxonomy) bool {
	if !changedSince(tl, u) {
		return false
	}
	d := (&decisionExtractor{tax}).proposed(tl, u)
	if d == nil {
		return false
	}
	low := lower(u.text)
	return lexicon.CueReferent.In(low) || agentNamed(tl, u, d.Chosen)
}

// pasteLeadIn reports whether a message opens with a short line of the
// person's own that introduces what follows ("A couple of tests are unhappy
// now:", "Das kommt raus:", "报错如下："): when the material after it reads
// as a failure, the line reports it, however much of the paste the prose
// test kept as words.
func pasteLeadIn(text string) bool {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	i := strings.IndexAny(line, ":：")
	if i < 0 {
		return false
	}
	lead := line[:i]
	return wordCount(lead) >= 2 && wordCount(lead) <= 25 && !strings.ContainsAny(lead, "?？") && !directiveStartRE.MatchString(lead)
}

// complaintAfterWork reports whether one of the first sentences says the
// agent's work or answer fell short in a form the failure cues do not
// cover, in any of the lexicon's languages: a challenge of the agent's
// claim opening the message ("Are you sure the HTML is the issue?", "Bist
// du sicher?", "你确定吗？") or of why it did it ("Why did you delete the
// file?", "Зачем ты удалил файл?"); a reproach of what it did or assumed ("You
// should know this...", "du hast vergessen", "你忘了"); the agent's mistake
// named ("we need to address an oversight", "这是个疏忽"); what came of the
// agent's own suggestion ("I'm using your suggested commands and they both
// exit immediately"); or a turn from approval to a shortfall ("This
// basePath method does the job, but we end up with two failed requests",
// "But I never saw the gui open", "Funktioniert, aber die Buttons fehlen").
// The turn, like any report of a result, needs the agent to have changed
// something; the others hold after an answer in words too.
func complaintAfterWork(tl *timeline, u *utterance, head string) bool {
	ss := sentences(head)
	if len(ss) == 0 {
		return false
	}
	if len(ss) > 3 {
		ss = ss[:3]
	}
	if (lexicon.CueDoubt.AtStart(ss[0]) || lexicon.CueWhyYou.AtStart(ss[0])) && questionLike(ss[0]) {
		return true
	}
	if saysNo(tl, u, ss[0]) {
		return true
	}
	for _, x := range ss {
		if isQuestion(x) && lexicon.CueReproach.In(x) && !directiveStartRE.MatchString(x) {
			// "내가 ... 참고하라고 했었거든?", "didn't I tell you to ...?":
			// a reminder put as a question is still one.
			return true
		}
		if isQuestion(x) || directiveStartRE.MatchString(x) {
			continue
		}
		if lexicon.CueReproach.In(x) || lexicon.CueMistake.In(x) || lexicon.CueYourWork.In(x) && !lexicon.CueAck.In(x) {
			return true
		}
		if len(u.calls) == 0 {
			continue
		}
		if j := lexicon.CueContrast.Find(x); j >= 0 {
			after := x[j:]
			if lexicon.CueNegation.In(after) || lexicon.CueNegatedResult.In(after) || lexicon.CueErrorWord.In(after) {
				return true
			}
		}
	}
	return false
}

// saysNo reports whether the message opens with a "no" to what the agent
// did (lexicon.CueNo, in any of its languages) that answers no question of
// the agent's and closes nothing ("no thanks", "kein Problem").
func saysNo(tl *timeline, u *utterance, first string) bool {
	if !lexicon.CueNo.AtStart(first) || closerRE.MatchString(first) || lexicon.CueAck.In(first) {
		return false
	}
	if strings.Contains(first, "problem") || strings.Contains(first, "проблем") || strings.Contains(first, "问题") {
		return false
	}
	return !askedRE.MatchString(strings.TrimSpace(headOf(lastSentenceOf(tl.lastAgentText(u)), 400)))
}

// lastSentenceOf is the last sentence of s: where an agent asks what it
// asks.
func lastSentenceOf(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 600 {
		s = s[len(s)-600:]
		for len(s) > 0 && !utf8.RuneStart(s[0]) {
			s = s[1:]
		}
	}
	ss := sentences(s)
	if len(ss) == 0 {
		return ""
	}
	return ss[len(ss)-1]
}

// questionLike reports whether s asks: a question mark, or the question
// particle Chinese, Japanese and Korean end a question with.
func questionLike(s string) bool {
	if isQuestion(s) {
		return true
	}
	s = strings.TrimRight(strings.TrimSpace(s), "。.!！ ")
	for _, p := range []string{"吗", "嗎", "か", "까", "니", "ไหม", "มั้ย", "เหรอ", "หรอ"} {
		if strings.HasSuffix(s, p) {
			return true
		}
	}
	return false
}

// negatedResult reports whether the message opens by saying the agent's
// work fell short: its first sentence, a statement (not a question, not
// a new request), negates a result or says a problem persists ("the
// config isn't right still", "I didn't see the new fields in the gui",
// "die Buttons sind immer noch da"), right after the agent changed
// something.
func negatedResult(tl *timeline, u *utterance, head string) bool {
	tried := len(u.calls) == 0 && len(u.edited) == 0
	if tried && !triedChange(tl, u) {
		return false // no change made (aider's edits are no tool calls)
	}
	ss := sentences(head)
	if len(ss) == 0 {
		return false
	}
	first := ss[0]
	if tried && lexicon.CueRequest.In(first) {
		// "ok donc je voudrais ne pas avoir à lancer les commandes": after
		// the agent only answered, a wish is a new request.
		return false
	}
	if isQuestion(first) {
		// "検索してもヒットしないんだけど、なんでかわかる？": a report, then
		// the question about it.
		if c, _, ok := strings.Cut(first, "、"); ok && wordCount(c) <= 40 && contrastEndRE.MatchString(c) && lexicon.NegatedPredicate(c) {
			return true
		}
		return false
	}
	if wordCount(first) > 40 || opensWithRequest(first) {
		return false
	}
	if lexicon.NegatedPredicate(first) {
		// "日本の都市がないね", "好きじゃないから…": Japanese and Korean
		// negate at the clause's end.
		return true
	}
	if lexicon.CueNegatedResult.In(first) {
		return true
	}
	// A negation in the sentence, not at its start: "it does not load",
	// but not the "not yet" of an answer to the agent's question ("Shall I
	// polish the UI?" - "пока нет, улучши документацию").
	if lexicon.CueNotYet.AtStart(first) && askedRE.MatchString(tailOf(strings.TrimSpace(tl.lastAgentText(u)), 600)) {
		return false
	}
	return negationInClause(first) || lexicon.NegatedStatementStart(first)
}

// negationInClause reports whether a clause of s holds a negation after
// its start ("the page does not load", "it works, but the menu doesn't
// open"). A negation that opens its clause prohibits, answers or specifies
// ("así me gusta, no toques nada más", "nevermind, no need super admin",
// "this is documentation, not code"): it reports no result.
func negationInClause(s string) bool {
	if lexicon.CueNegation.AtStart(s) {
		return false
	}
	for _, cl := range strings.FieldsFunc(strings.ReplaceAll(s, " - ", ";"), func(r rune) bool { return strings.ContainsRune(",;:，；：、—–", r) }) {
		// A negation inside the clause reports a result, unless it sets
		// one thing against another ("catch SuitableRepoNotFound not
		// FileNotFoundError": which, not a result).
		if lexicon.CueNegation.In(cl) && !lexicon.CueNegation.AtStart(cl) && lexicon.CueNegation.In(withoutContrastNot(cl)) {
			return true
		}
	}
	return false
}

// contrastNotIn reports whether one of the first sentences of text sets
// what should be against what is ("A not B"): "hide the column. And color
// the row background not the letters."
func contrastNotIn(text string) bool {
	for i, sent := range sentences(text) {
		if i >= 3 {
			break
		}
		if !isQuestion(sent) && withoutContrastNot(sent) != sent {
			return true
		}
	}
	return false
}

// contrastNotRE is English "A not B" with no comma: a word, then "not",
// then what it is set against ("get not post", "catch SuitableRepoNotFound
// not FileNotFoundError").
var contrastNotRE = textutil.Lazy("(?i)([\\w.`'\"()-]+)\\s+not\\s+[\\w.`'\"/-]")

// notAux are the words before "not" that negate a verb ("does not load",
// "is not shown", "still not working"): a result, not a contrast.
var notAux = map[string]bool{"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "do": true, "does": true,
	"did": true, "can": true, "could": true, "will": true, "would": true, "should": true, "shall": true, "may": true, "might": true,
	"must": true, "has": true, "have": true, "had": true, "am": true, "still": true, "yet": true, "it's": true, "that's": true,
	"there's": true, "i'm": true, "you're": true, "we're": true, "they're": true, "why": true, "and": true, "or": true, "but": true,
	"if": true, "whether": true, "just": true, "really": true, "actually": true, "also": true, "so": true, "as": true, "at": true,
	"of": true, "me": true, "it": true, "i": true, "you": true, "we": true, "they": true, "he": true, "she": true, "please": true,
	"maybe": true, "probably": true, "definitely": true, "certainly": true, "almost": true, "even": true, "ever": true}

// withoutContrastNot is s with the "not" of each "A not B" contrast
// (contrastNotRE, A no auxiliary) taken out.
func withoutContrastNot(s string) string {
	if !strings.Contains(strings.ToLower(s), "not") {
		return s
	}
	out := s
	for _, loc := range contrastNotRE.RE().FindAllStringSubmatchIndex(s, -1) {
		// B ends the clause within three words: "the row background not
		// the letter", not "the 405 method not allowed error you got".
		if notAux[strings.ToLower(strings.Trim(s[loc[2]:loc[3]], "`'\"()"))] || len(strings.Fields(s[loc[1]-1:])) > 3 {
			continue
		}
		out = strings.Replace(out, s[loc[2]:loc[1]-1], s[loc[2]:loc[3]]+" ", 1)
	}
	return out
}

// contrastEndRE is a Japanese clause that ends in "but" (けど, が).
var contrastEndRE = textutil.Lazy(`(?:けど|けれど|が)$`)

// tailOf returns the last n bytes of s, cut at a rune boundary.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// headOf returns the first n bytes of s, cut at a rune boundary: a
// redirect is said at the start, a cue deep in a pasted document is the
// document's.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// errorOutputRE finds an error in pasted output.
var errorOutputRE = textutil.Lazy(`(?i)(error|exception|traceback|failed|failure|fatal|panic|denied|not found|cannot|can't|unable|\b[45]\d\d\b (forbidden|not found|unauthorized|bad request|internal|service unavailable)|errno|exit (code|status) [1-9])`)

// relevant reports whether u talks about what the agent just did: shared
// action types, or words shared with the last calls' commands and paths.
func relevant(tl *timeline, u *utterance, tax *Taxonomy) bool {
	tt := tax.ClassifyText(u.text)
	ws := contentStems(u.text)
	calls := u.calls
	if len(calls) > 3 {
		calls = calls[len(calls)-3:]
	}
	for _, c := range calls {
		r := tl.rec(c)
		for _, t := range tl.s.callTypes(tax, c) {
			if slices.Contains(tt, t) {
				return true
			}
		}
		cw := contentStems(callWords(r))
		for w := range ws {
			if len(w) >= 4 && cw[w] {
				return true
			}
		}
	}
	return false
}

// echoes reports whether u names a concrete thing (an identifier, a path, a
// flag: namedRE) that the person's previous message or the agent's reply
// since named: after an interrupt, a message about the same things as the
// interrupted turn, in whatever language, narrows or redirects it ("make
// `test_subtree_only` use GitTemporaryDirectory" after "don't use
// IgnorantTemporaryDirectory use GitTemporaryDirectory" and a ^C).
func echoes(tl *timeline, u *utterance) bool {
	mine := namedRE.RE().FindAllString(u.text, 12)
	if len(mine) == 0 {
		return false
	}
	var before strings.Builder
	if u.prev >= 0 {
		before.WriteString(tl.utts[u.prev].text)
	}
	for _, a := range u.assistant {
		before.WriteString("\n" + headOf(tl.rec(a).Text, 2000))
	}
	prior := strings.ToLower(before.String())
	for _, m := range mine {
		m = strings.ToLower(strings.Trim(m, "`"))
		if len(m) >= 4 && strings.Contains(prior, m) {
			return true
		}
	}
	return false
}

// namesAgentWork reports whether u's first lines name a concrete thing (a
// path, an identifier: namedRE) that the agent's replies or calls since
// the person's previous message hold: the person speaks of what the agent
// just produced, not of something new.
func namesAgentWork(tl *timeline, u *utterance) bool {
	mine := namedRE.RE().FindAllString(headOf(u.text, 300), 8)
	if len(mine) == 0 {
		return false
	}
	var work strings.Builder
	for _, a := range u.assistant {
		work.WriteString("\n" + headOf(tl.rec(a).Text, 4000))
	}
	for _, c := range u.calls {
		work.WriteString("\n" + callWords(tl.rec(c)))
	}
	done := strings.ToLower(work.String())
	for _, m := range mine {
		if m = strings.ToLower(strings.Trim(m, "`")); len(m) >= 4 && strings.Contains(done, m) {
			return true
		}
	}
	return false
}

// withSignal is signals with s, once.
func withSignal(signals []string, s string) []string {
	if slices.Contains(signals, s) {
		return signals
	}
	return append(signals, s)
}

// prohibitsWritten reports whether u opens with a negation (in any cue
// language) and its first sentence names what the agent's edits since the
// person last spoke wrote: "不要在心法里写包工头" after an edit that wrote
// 包工头, "nicht den Rahmen" after one that drew it. English has its own
// path (strongStartRE and a directive); this one needs no verb list.
func prohibitsWritten(tl *timeline, u *utterance) bool {
	return lexicon.CueNegation.AtStart(lower(u.text)) && namesWritten(tl, u)
}

// needlessElsewhere reports whether what a "no need for" sentence names
// can be told to lie outside the change: it names words in Latin letters
// (a UI string, an identifier: "Image A Face found"), and none of them is
// in what the last edits added or what the agent said since the person
// last spoke. Words in another script than the change's ("この白枠は
// いらない" after a change the agent described in English) cannot be told
// apart, and count as the change's.
func needlessElsewhere(tl *timeline, u *utterance, first string) bool {
	var latin []string
	for _, w := range strings.FieldsFunc(first, func(r rune) bool { return r > 127 || !unicode.IsLetter(r) }) {
		if len(w) >= 4 && !cueStems()[stem(strings.ToLower(w))] {
			latin = append(latin, strings.ToLower(w))
		}
	}
	if len(latin) == 0 {
		return false
	}
	var b strings.Builder
	b.WriteString(lastWritten(tl, u))
	for _, a := range u.assistant {
		b.WriteString(tl.rec(a).Text)
		b.WriteString("\n")
	}
	theirs := strings.ToLower(b.String())
	for _, w := range latin {
		if strings.Contains(theirs, w) {
			return false
		}
	}
	return true
}

// lastWritten is the text the agent's edits since the person last spoke
// added, or, when they spoke only to approve ("挺好的"), the text of the
// edits before that, one edit a line.
func lastWritten(tl *timeline, u *utterance) string {
	calls := u.calls
	if len(calls) == 0 && u.prev >= 0 {
		calls = tl.utts[u.prev].calls
	}
	var w strings.Builder
	for _, c := range calls {
		added, _ := addedText(tl.rec(c))
		w.WriteString(added)
		w.WriteString("\n")
	}
	return w.String()
}

// namesWritten reports whether the first sentence of u names a word (a CJK
// bigram, a stem of four letters or more) that the agent's last edits
// added.
func namesWritten(tl *timeline, u *utterance) bool {
	written := lastWritten(tl, u)
	if strings.TrimSpace(written) == "" {
		return false
	}
	theirs := contentStems(written)
	for tok := range topicTokens(firstSentence(u.text)) {
		if isCJK([]rune(tok)[0]) {
			if len([]rune(tok)) >= 2 && strings.Contains(written, tok) {
				return true
			}
			continue
		}
		if len(tok) >= 4 && theirs[tok] {
			return true
		}
	}
	return false
}

// callWords returns the command, paths and short string arguments of a call
// as text.
func callWords(r *traces.Record) string {
	var m map[string]any
	if json.Unmarshal(r.Input, &m) != nil {
		return r.Tool + " " + shorten(string(r.Input), 200)
	}
	var b strings.Builder
	b.WriteString(r.Tool)
	for _, k := range []string{"command", "cmd", "file_path", "path", "pattern", "url", "query", "description"} {
		switch v := m[k].(type) {
		case string:
			b.WriteString(" " + shorten(v, 300))
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					b.WriteString(" " + s)
				}
			}
		}
	}
	return b.String()
}

func (e *correctionExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		conf, signals := tl.corrected(u, e.tax)
		switch {
		case conf == 0 && failureAfterChange(tl, u):
			// A failure reported right after a change corrects it too;
			// the negative-result extractor keeps what failed.
			conf, signals = 0.7, []string{SignalFailure}
		case conf > 0 && len(u.rejected) == 0 && !u.interrupted && !slices.Contains(signals, SignalFailure) && failureAfterChange(tl, u):
			// "Oh no, we lost the navigation section": frustration and a
			// failure report at once; what failed is the change before it,
			// and the lesson is built from it, not the complaint.
			signals = append(signals, SignalFailure)
		}
		if conf == 0 && degreeAfterChange(tl, u) {
			conf, signals = 0.6, []string{SignalExplicitCorrection}
		}
		if conf == 0 && proposalAfterChange(tl, u, e.tax) {
			conf, signals = 0.6, []string{SignalExplicitCorrection}
		}
		if conf == 0 {
			continue
		}
		call := correctedCall(tl, u, e.tax)
		failure := slices.Contains(signals, SignalFailure)
		if failure || len(u.rejected) == 0 && answersChange(tl, u, lower(u.text), wordCount(u.text)) {
			// What failed, what the person takes out, or what works
			// otherwise than they want, is what was changed, not the
			// check run after it.
			call = lastChange(tl, u, e.tax)
		}
		lesson, consequence, typed := correctionLesson(tl, u, call, failure)
		if wordCount(lesson) < 2 {
			continue
		}
		if typed == "" {
			typed = lesson + " " + consequence
		}
		said := e.tax.ClassifyText(typed)
		var types []string
		trigger := ""
		from := u.idx
		if call >= 0 {
			r := tl.rec(call)
			only := tl.s.callContentOnly(e.tax, call)
			types = saidFirst(tl.s.callTypes(e.tax, call), only, said)
			// The trigger is described by what the person spoke of: a
			// content type they did not name ("writing raw colours ..."
			// for a patch whose filter logic they reported) stays a type
			// of the call, not its description.
			trigger = describeCall(r, slices.DeleteFunc(slices.Clone(types), func(t string) bool {
				return slices.Contains(only, t) && !slices.Contains(said, t)
			}), e.tax)
			from = call
		} else {
			// A complaint about the agent's answer in words corrects the
			// answer; otherwise the request it answered is the moment, if
			// that message names a task ("всё", "ok", "thanks" name none),
			// else the answer.
			a := proposalOf(tl.lastAgentText(u))
			if p := u.prev; (!failure || a == "") && p >= 0 && asksForWork(tl.utts[p].text) {
				trigger = "when asked to " + shorten(lowerFirst(cleanMarkup(tl.utts[p].text)), 90)
			} else if a != "" {
				trigger = "after the agent's answer " + quoteText(shorten(cleanMarkup(a), 90))
			}
		}
		types = unionStrings(types, said)
		if len(types) > 8 {
			types = types[:8]
		}
		if frustrationRE.MatchString(u.text) {
			signals = append(signals, SignalFrustration)
		}
		if severityRE.MatchString(u.text) {
			signals = append(signals, SignalSeverity)
		}
		if markerRE.MatchString(u.text) {
			signals = append(signals, SignalMarker)
		}
		rework := reworkCount(tl, k)
		if rework >= 4 {
			signals = append(signals, SignalRework)
		}
		o := &Observation{
			Type:        TypeCorrection,
			Title:       shorten(cleanMarkup(lesson), 80),
			Trigger:     trigger,
			ActionTypes: types,
			Lesson:      lesson,
			Consequence: consequence,
			Confidence:  conf,
			Importance:  correctionImportance(signals, rework),
			Signals:     signals,
			Sources:     tl.sourceRefs(from, u.idx),
			Excerpt:     correctionExcerpt(tl, call, u),
		}
		switch {
		case MomentTrigger(trigger):
			o.Description = "Correction " + trigger
		case trigger != "":
			o.Description = "Correction after " + trigger
		default:
			o.Description = "Correction: " + shorten(lesson, 100)
		}
		out = append(out, o)
	}
	return out
}

// saidFirst puts first the types a corrected call has only through what
// it wrote that the person's words speak of ("Float per i soldi" after a
// Write of a float price): those are what was corrected. The others stay
// last (callTypes): the print() calls in a test script are not what "that
// test should be a permanent unit test" corrects, but after a bare "no"
// they may be all there is.
func saidFirst(types, contentOnly, said []string) []string {
	var first, rest []string
	for _, t := range types {
		if slices.Contains(contentOnly, t) && slices.Contains(said, t) {
			first = append(first, t)
		} else {
			rest = append(rest, t)
		}
	}
	return append(first, rest...)
}

// correctedCall picks the tool call a correction is about: the refused one,
// else the last call that does something classifiable, else the last call.
func correctedCall(tl *timeline, u *utterance, tax *Taxonomy) int {
	if len(u.rejected) > 0 {
		return u.rejected[len(u.rejected)-1]
	}
	if c := prohibitedCall(tl, u); c >= 0 {
		// "don't `await env.MENU_CACHE.put(...)` before the response",
		// after the edit that wrote it and a test run: the edit.
		return c
	}
	for i := len(u.calls) - 1; i >= 0 && i >= len(u.calls)-5; i-- {
		if len(tl.s.callTypes(tax, u.calls[i])) > 0 && !onlyPrints(tl.rec(u.calls[i])) && !writesOwnMemory(tl.rec(u.calls[i])) {
			return u.calls[i]
		}
	}
	for i := len(u.calls) - 1; i >= 0; i-- {
		// A question put to the person, a plan written down or a task
		// handed to a subagent acts on nothing itself: the correction is
		// about the call before it, or the agent's words ("BEFORE calling
		// AskUserQuestion" would fire on every later question).
		if r := tl.rec(u.calls[i]); !askTools[r.Tool] && !planTools[r.Tool] && !delegateTools[r.Tool] && !onlyPrints(r) && !writesOwnMemory(r) {
			return u.calls[i]
		}
	}
	return -1
}

// onlyPrints reports whether call r is a shell command that only prints
// words (echo, printf) to no file: the agent talking through its shell
// (Codex agents echo their status), which acts on nothing.
func onlyPrints(r *traces.Record) bool {
	cmd := strings.TrimSpace(callCommand(r))
	if f := strings.Fields(cmd); len(f) == 0 || f[0] != "echo" && f[0] != "printf" {
		return false
	}
	// What it prints may hold any sign; what runs besides it may not.
	return !strings.ContainsAny(quotedArgRE.ReplaceAllString(cmd, "ARG"), ">|;&`$")
}

// writesOwnMemory reports whether call r edits only the agent's own
// memory notes (Claude Code's ~/.claude/projects/<p>/memory/): the agent
// writing down what it learnt acts on nothing of the person's.
func writesOwnMemory(r *traces.Record) bool {
	fs, ok := editedFiles(r)
	if !ok || len(fs) == 0 {
		return false
	}
	for _, f := range fs {
		// Of the agent's own files (agentMemoryPath), its memory notes: a
		// project's .claude/settings.json is the person's configuration.
		if !agentMemoryPath(f) || !strings.Contains(strings.ReplaceAll(f, `\`, "/"), "/memory/") {
			return false
		}
	}
	return true
}

// quotedArgRE is a quoted shell argument.
var quotedArgRE = textutil.Lazy(`'[^']*'|"(?:[^"\\]|\\.)*"`)

// lookedAt reports whether call is a look the person's words do not
// answer: it only reads (looksOnly), it was not refused, and u does not
// name its program. `sed -n '1,260p' App.css` before "remove it if it's
// not working" is not what "it" is.
func lookedAt(tl *timeline, u *utterance, call int) bool {
	if call < 0 || slices.Contains(u.rejected, call) {
		return false
	}
	r := tl.rec(call)
	return looksOnly(r) && !strings.Contains(lower(u.text), strings.ToLower(commandProgram(r))+" ")
}

// lookPrograms read, search or print and change nothing; git only with
// gitLooks's subcommands.
var (
	lookPrograms = map[string]bool{"cat": true, "less": true, "more": true, "head": true, "tail": true, "grep": true, "egrep": true,
		"rg": true, "ag": true, "ls": true, "find": true, "fd": true, "wc": true, "diff": true, "jq": true, "yq": true, "cd": true,
		"pwd": true, "which": true, "type": true, "file": true, "stat": true, "tree": true, "sort": true, "uniq": true, "cut": true,
		"nl": true, "sed": true, "awk": true, "echo": true, "printf": true, "git": true, "du": true, "df": true}
	gitLooks = map[string]bool{"status": true, "log": true, "diff": true, "show": true, "branch": true, "remote": true, "blame": true, "ls-files": true}
)

// looksOnly reports whether call r only looks: a read tool, or a shell
// command each part of which runs a program of lookPrograms, with nothing
// written (no redirection, no in-place edit, no -delete or -exec).
func looksOnly(r *traces.Record) bool {
	if readOnlyTools[r.Tool] {
		return true
	}
	cmd := callCommand(r)
	if cmd == "" || strings.ContainsAny(cmd, ">`$") || strings.Contains(cmd, " -i") || strings.Contains(cmd, "-delete") || strings.Contains(cmd, "-exec") {
		return false
	}
	for _, part := range strings.FieldsFunc(cmd, func(c rune) bool { return c == '|' || c == ';' || c == '&' || c == '\n' }) {
		f := strings.Fields(part)
		for len(f) > 0 && (strings.Contains(f[0], "=") || f[0] == "sudo") {
			f = f[1:]
		}
		if len(f) == 0 {
			continue
		}
		p := path.Base(strings.Trim(f[0], `"'`))
		if !lookPrograms[p] || p == "git" && (len(f) < 2 || !gitLooks[f[1]]) {
			return false
		}
	}
	return true
}

// planTools write the agent's plan or to-do list, not the project.
var planTools = map[string]bool{"TodoWrite": true, "update_plan": true, "ExitPlanMode": true, "EnterPlanMode": true, "write_todos": true}

// delegateTools hand a task to a subagent: the subagent's calls, not the
// handing over, act on the project ("BEFORE calling Agent" would fire on
// every later delegation).
var delegateTools = map[string]bool{"Agent": true, "Task": true, "spawn_agent": true}

// lastChange picks the call a failure report is about: the last edit, else
// the last classifiable call, else the last call.
func lastChange(tl *timeline, u *utterance, tax *Taxonomy) int {
	for i := len(u.calls) - 1; i >= 0; i-- {
		fs, ok := editedFiles(tl.rec(u.calls[i]))
		if ok && !(len(fs) == 1 && agentMemoryPath(fs[0])) {
			return u.calls[i]
		}
	}
	return correctedCall(tl, u, tax)
}

// reworkCount counts the agent's tool calls and messages after utterance k
// until the person speaks again.
func reworkCount(tl *timeline, k int) int {
	n := 0
	for _, j := range tl.after[k] {
		r := tl.rec(j)
		if isToolCall(r) || isAgentText(r) {
			n++
		}
	}
	return n
}

func correctionImportance(signals []string, rework int) float64 {
	imp := 0.45
	for _, s := range signals {
		switch s {
		case SignalRejection:
			imp += 0.15
		case SignalInterrupt:
			imp += 0.1
		case SignalExplicitCorrection:
			imp += 0.1
		case SignalFrustration:
			imp += 0.1
		case SignalSeverity:
			imp += 0.1
		case SignalMarker:
			imp += 0.05
		}
	}
	imp += min(0.1, 0.02*float64(rework))
	return clamp01(imp)
}

func correctionExcerpt(tl *timeline, call int, u *utterance) string {
	var b strings.Builder
	if call >= 0 {
		r := tl.rec(call)
		b.WriteString("Agent: " + callSummary(r))
		if len(u.rejected) > 0 {
			b.WriteString(" (refused)")
		}
		if w := prohibitedWritten(r, u.text, tl.redoneText(u, r)); len(w) > 0 {
			// What the agent wrote that the person's negation names, as
			// code: "don't call services with axios" after an edit that
			// imports axios. Recall reads it as prohibited code.
			b.WriteString(WroteMark + "`" + strings.Join(w, "`, `") + "`")
		}
		b.WriteString("\n")
	}
	b.WriteString("User: " + shorten(u.text, 1200))
	if u.pasted != "" {
		// Pasted output is context, never the lesson.
		b.WriteString("\nPasted: " + shorten(u.pasted, 400))
	}
	return b.String()
}

// callSummary renders a tool call in a few words: the command, or the tool
// and the path it touches.
func callSummary(r *traces.Record) string {
	if fs := patchFiles(r); len(fs) > 0 && fs[0] != "" {
		return "apply_patch `" + projectPath(fs[0], r.Cwd) + "`"
	}
	if c := callCommand(r); c != "" {
		return "`" + shorten(c, 100) + "`"
	}
	var m map[string]any
	_ = json.Unmarshal(r.Input, &m)
	for _, k := range pathKeys {
		if p, ok := m[k].(string); ok && p != "" {
			return r.Tool + " `" + projectPath(p, r.Cwd) + "`"
		}
	}
	if r.Tool != "" {
		return r.Tool
	}
	return "a tool call"
}

// projectPath names a file as its project does: relative to the session's
// working directory when it lies deeper than three segments below it (up
// to six segments, the last ones), so that the trigger keeps the
// directories a lesson may be about ("lib/berthly_web/controllers/...");
// else its last three segments.
func projectPath(p, cwd string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	cwd = strings.TrimRight(strings.ReplaceAll(cwd, `\`, "/"), "/")
	rel, ok := strings.CutPrefix(p, cwd+"/")
	if cwd == "" || !ok || rel == "" {
		return shortPath(p)
	}
	parts := strings.Split(rel, "/")
	if len(parts) <= 3 {
		// Near the project's root the last three segments say more: the
		// project's own directory among them.
		return shortPath(p)
	}
	if len(parts) > 6 {
		parts = parts[len(parts)-6:]
	}
	return strings.Join(parts, "/")
}

// shortPath keeps the last three segments of a path.
func shortPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > 3 {
		parts = parts[len(parts)-3:]
	}
	return strings.Join(parts, "/")
}

// describeCall phrases the corrected action for a trigger: the most specific
// action type's description and the concrete call.
func describeCall(r *traces.Record, types []string, tax *Taxonomy) string {
	sum := callSummary(r)
	if len(types) > 0 {
		return tax.Describe(types[0]) + ": " + sum
	}
	lt := strings.ToLower(r.Tool)
	switch {
	case shellTools[lt]:
		return "running " + sum
	case editTools[lt] || lt == "apply_patch":
		// Codex's apply_patch names its file as an edit does.
		return "editing " + strings.TrimPrefix(sum, r.Tool+" ")
	}
	return "calling " + sum
}

var lowerFirst = lexicon.LowerFirst

// codeRefRE is code named in a message: a code span, a call (print(),
// fmt.Println()), or a dotted name (fmt.Println, console.log).
var codeRefRE = textutil.Lazy("`([^`\n]{2,60})`|\\b([A-Za-z_][\\w]*(?:\\.[A-Za-z_]\\w*)*\\(\\))|\\b([A-Za-z_]\\w*\\.[A-Za-z_]\\w*)\\b")

// clauseStopRE ends a clause: a sentence stop (CJK ones need no space), a
// semicolon, a comma.
var clauseStopRE = textutil.Lazy(`[.!?;]\s+|[。！？；，]|,\s+`)

// prohibitsAgentCode reports whether the person's message prohibits code
// the agent just wrote or ran: a clause with a negation (lexicon, any
// language) names code (codeRefRE) that the input of one of the agent's
// last calls holds ("print()" as a call of print).
func prohibitsAgentCode(tl *timeline, u *utterance) bool { return prohibitedCall(tl, u) >= 0 }

// prohibitedCall is the last of the agent's recent calls that wrote code a
// clause of u with a negation names, or -1.
func prohibitedCall(tl *timeline, u *utterance) int {
	calls := u.calls
	if len(calls) > 8 {
		calls = calls[len(calls)-8:]
	}
	var toks []string
	for _, cl := range clauseStopRE.Split(headOf(u.text, 2000), -1) {
		if !lexicon.CueNegation.In(lower(cl)) {
			continue
		}
		for _, m := range codeRefRE.FindAllStringSubmatch(cl, -1) {
			tok := m[1] + m[2] + m[3]
			for _, elided := range []string{"()", "(...)", "(…)"} {
				// `put(...)`: the call, whatever its arguments.
				if call, ok := strings.CutSuffix(tok, elided); ok {
					tok = call + "("
					break
				}
			}
			if tok = strings.TrimPrefix(tok, "await "); len(tok) >= 3 {
				toks = append(toks, tok)
			}
		}
	}
	for i := len(calls) - 1; i >= 0 && len(toks) > 0; i-- {
		in := headOf(string(tl.rec(calls[i]).Input), 8000)
		for _, tok := range toks {
			if strings.Contains(in, tok) {
				return calls[i]
			}
		}
	}
	return -1
}

// fileExts are the extensions that make a dotted word a file's name
// ("não quebrar o instalador.sh"), not code: a file the person names is
// the file kb records, not code the agent wrote.
var fileExts = map[string]bool{"sh": true, "bash": true, "md": true, "py": true, "js": true, "ts": true, "tsx": true, "jsx": true,
	"go": true, "rb": true, "rs": true, "java": true, "kt": true, "swift": true, "json": true, "yaml": true, "yml": true,
	"toml": true, "sql": true, "txt": true, "html": true, "css": true, "scss": true, "xml": true, "ini": true, "cfg": true,
	"conf": true, "lock": true, "csv": true, "log": true, "cs": true, "php": true, "vue": true, "svelte": true, "bat": true,
	"ps1": true, "ex": true, "exs": true, "dart": true, "lua": true, "tf": true, "gradle": true, "plist": true}

// fileNamed reports whether w is a file name by its extension.
func fileNamed(w string) bool {
	i := strings.LastIndexByte(w, '.')
	return i > 0 && fileExts[w[i+1:]]
}

// WroteMark opens, on the "Agent:" line of a correction's excerpt, the
// code the agent wrote that the person's words prohibit (recall reads it).
const WroteMark = "; wrote "

// wordTokenRE is a word as code and prose share it: an identifier, a
// dotted or annotated name (FetchType.EAGER, @Autowired, lodash.get).
var wordTokenRE = textutil.Lazy(`@?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*`)

// prohibitedWritten returns what edit r added (the new text of an edit,
// the content written, a patch's + lines) that a clause with a negation of the
// person's message names: at most four words of three letters or more,
// as r wrote them, none of the words every program or sentence has, none
// already in the text the edit replaced. redo is what the agent wrote in
// the same file right after the person spoke ("" if nothing): code the
// person named in any clause that is no thanks, and that the agent's next
// version dropped, was what was wrong ("to_f e round(2) ci hanno già
// fatto sballare i centesimi", then a version with monetize).
func prohibitedWritten(r *traces.Record, said, redo string) []string {
	if callCommand(r) != "" {
		return nil // a command's words are hosts and arguments; its type and text say what it does
	}
	added, old := addedText(r)
	if added == "" {
		return nil
	}
	inAdded := map[string]string{}
	for _, w := range wordTokenRE.FindAllString(headOf(added, 20000), -1) {
		for _, p := range dottedPrefixes(w) {
			if _, ok := inAdded[strings.ToLower(p)]; !ok {
				inAdded[strings.ToLower(p)] = p
			}
		}
	}
	inAddedTail := map[string]string{}
	for _, w := range wordTokenRE.FindAllString(headOf(added, 20000), -1) {
		for i := strings.IndexByte(w, '.'); i > 0 && i < len(w)-1; i = nextDot(w, i) {
			inAddedTail[strings.ToLower(w[i+1:])] = w[i:] // with its dot: a selector, not a name
		}
	}
	inOld := map[string]bool{}
	for _, w := range wordTokenRE.FindAllString(headOf(old, 20000), -1) {
		for _, p := range dottedPrefixes(w) {
			inOld[strings.ToLower(p)] = true
		}
	}
	var out []string
	for _, cl := range clauseStopRE.Split(headOf(said, 2000), -1) {
		negated := lexicon.CueNegation.In(lower(cl))
		if !negated && (redo == "" || lexicon.CueAck.In(lower(cl))) {
			continue
		}
		for k, w := range wordTokenRE.FindAllString(cl, -1) {
			lw := strings.ToLower(strings.Trim(w, "."))
			as, ok := inAdded[lw]
			if !ok && !negated {
				as, ok = inAddedTail[strings.TrimPrefix(lw, ".")] // ".all.each" of Customer.all.each
			}
			if ok && !negated && strings.Contains(redo, as) {
				continue // kept in the next version: not what was wrong
			}
			if ok && k > 0 && as != strings.Trim(w, ".") && w != lw {
				// "don't pass the Order object": the class, mid-sentence
				// and capitalized, is not the variable order the edit
				// wrote (code is case-sensitive).
				continue
			}
			if !ok || len(lw) < 3 || inOld[lw] || lexicon.StopExtract.Has(lw) || codeCommonWords[lw] || slices.Contains(out, as) ||
				!codeShaped(as) && !imported(added, as) && !selected(added, as) && !called(added, as) || fileNamed(as) {
				continue
			}
			if out = append(out, as); len(out) == 4 {
				return out
			}
		}
	}
	return out
}

// nextDot is the index of the dot after the one at i in w, or -1.
func nextDot(w string, i int) int {
	if j := strings.IndexByte(w[i+1:], '.'); j >= 0 {
		return i + 1 + j
	}
	return -1
}

// dottedPrefixes are a dotted name and its prefixes: axios.get names
// axios too.
func dottedPrefixes(w string) []string {
	var out []string
	for i := len(w); i > 0; i = strings.LastIndexByte(w[:i], '.') {
		out = append(out, w[:i])
	}
	return out
}

// codeShaped reports whether a word can only be code: a dotted or
// annotated name, an underscore, a digit, a capital inside it
// (FetchType.EAGER, @Autowired, find_by_id, int64, useState).
func codeShaped(w string) bool {
	if strings.ContainsAny(w, "._@$0123456789") {
		return true
	}
	for i := 1; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// importedRE finds what a line of code imports or requires.
var importedRE = textutil.Lazy(`(?m)^\s*(?:import|from|use|using|require|#include)\b[^\n]*|require\(\s*['"][^'"]+['"]\s*\)`)

// imported reports whether code imports w (a package written as a plain
// word: axios, lodash, requests, moment).
func imported(code, w string) bool {
	for _, ln := range importedRE.FindAllString(headOf(code, 20000), -1) {
		for _, x := range wordTokenRE.FindAllString(ln, -1) {
			if strings.EqualFold(x, w) {
				return true
			}
		}
	}
	return false
}

// called reports whether code calls w as a function or macro (kapt(...),
// println!(...)), not as a method (->create(), .map(), ::new()): w is
// then code in use, not a word of the text.
func called(code, w string) bool {
	return occurs(code, w, ".>:", func(rest string) bool {
		return strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, "!(")
	})
}

// selected reports whether code calls a member of w (axios.get, lodash.map):
// w is then a package or an object in use.
func selected(code, w string) bool {
	return occurs(code, w, ".", func(rest string) bool { return strings.HasPrefix(rest, ".") })
}

// occurs reports whether w occurs in code as a name of its own (no
// identifier byte and none of notAfter before it) followed by what next
// accepts.
func occurs(code, w, notAfter string, next func(rest string) bool) bool {
	for i := 0; ; {
		j := strings.Index(code[i:], w)
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || !textutil.IdentByte(code[j-1]) && !strings.ContainsRune(notAfter, rune(code[j-1]))) && next(code[j+len(w):]) {
			return true
		}
		i = j + 1
	}
}

// codeCommonWords are words most code holds: naming one is naming no
// code in particular.
var codeCommonWords = map[string]bool{"return": true, "import": true, "from": true, "const": true, "let": true, "var": true,
	"val": true, "fun": true, "func": true, "def": true, "class": true, "new": true, "this": true, "self": true, "true": true,
	"false": true, "null": true, "nil": true, "none": true, "async": true, "await": true, "string": true, "int": true,
	"function": true, "export": true, "default": true, "public": true, "private": true, "static": true, "void": true,
	"data": true, "value": true, "type": true, "test": true, "tests": true, "file": true, "code": true, "here": true,
	"there": true, "that": true, "the": true, "and": true, "for": true, "with": true, "not": true, "use": true}

// addedText is what an edit adds, and the text it replaces: an edit's new
// and old strings (every edit of a MultiEdit), a write's content, an
// apply_patch's + and - lines.
func addedText(r *traces.Record) (added, old string) {
	var m map[string]any
	if json.Unmarshal(r.Input, &m) != nil {
		var s string
		if json.Unmarshal(r.Input, &s) != nil {
			s = string(r.Input)
		}
		m = map[string]any{"patch": s}
	}
	var a, o strings.Builder
	add := func(mm map[string]any) {
		for _, k := range []string{"new_string", "content", "new_str", "file_text", "new_source", "code_edit", "insert_text", "new_content"} {
			if v, ok := mm[k].(string); ok {
				a.WriteString(v + "\n")
			}
		}
		for _, k := range []string{"old_string", "old_str"} {
			if v, ok := mm[k].(string); ok {
				o.WriteString(v + "\n")
			}
		}
		for _, k := range []string{"patch", "input", "diff"} {
			if v, ok := mm[k].(string); ok && strings.Contains(v, "\n+") {
				for _, ln := range strings.Split(v, "\n") {
					switch {
					case strings.HasPrefix(ln, "+") && !strings.HasPrefix(ln, "+++"):
						a.WriteString(ln[1:] + "\n")
					case strings.HasPrefix(ln, "-") && !strings.HasPrefix(ln, "---"):
						o.WriteString(ln[1:] + "\n")
					}
				}
			}
		}
	}
	add(m)
	if edits, ok := m["edits"].([]any); ok {
		for _, e := range edits {
			if em, ok := e.(map[string]any); ok {
				add(em)
			}
		}
	}
	return a.String(), o.String()
}

// redoneText is what the agent added, after utterance u and before the
// person spoke again, to the file that call r wrote: its next version of
// the change u corrected ("" when there is none).
func (tl *timeline) redoneText(u *utterance, r *traces.Record) string {
	f := writtenFile(r)
	if f == "" {
		return ""
	}
	k := tl.index(u)
	if k < 0 {
		return ""
	}
	var b strings.Builder
	for _, j := range tl.after[k] {
		if x := tl.rec(j); isToolCall(x) && writtenFile(x) == f {
			a, _ := addedText(x)
			b.WriteString(a)
		}
	}
	return b.String()
}

// writtenFile is the file an edit or write call names ("" for others).
func writtenFile(r *traces.Record) string {
	if fs := patchFiles(r); len(fs) > 0 {
		return fs[0]
	}
	var m map[string]any
	if json.Unmarshal(r.Input, &m) != nil {
		return ""
	}
	for _, k := range pathKeys {
		if p, ok := m[k].(string); ok && p != "" {
			return p
		}
	}
	return ""
}

// namesRedoneCode reports whether u names code the agent's last write
// before it added and the agent's next version of that file drops.
func namesRedoneCode(tl *timeline, u *utterance) bool {
	for i := len(u.calls) - 1; i >= 0 && i >= len(u.calls)-3; i-- {
		r := tl.rec(u.calls[i])
		f := strings.ToLower(writtenFile(r))
		if f == "" {
			continue
		}
		if slices.Contains([]string{".md", ".mdx", ".txt", ".rst", ".adoc", ".org"}, path.Ext(f)) {
			return false // prose the agent wrote names things; it is no code
		}
		redo := tl.redoneText(u, r)
		return redo != "" && len(prohibitedWritten(r, u.text, redo)) > 0
	}
	return false
}

// namesRetriedCommand reports whether u names a word of the agent's last
// command that its next command, a retry of the same action (it shares
// an argument), leaves out: "forget bin/rspec, it's just bundle exec
// rspec again now", then `bundle exec rspec spec/x_spec.rb`.
func namesRetriedCommand(tl *timeline, u *utterance) bool {
	if len(u.calls) == 0 {
		return false
	}
	before := callCommand(tl.rec(u.calls[len(u.calls)-1]))
	k := tl.index(u)
	if before == "" || k < 0 {
		return false
	}
	after := ""
	for _, j := range tl.after[k] {
		if c := callCommand(tl.rec(j)); c != "" {
			after = c
			break
		}
	}
	if after == "" {
		return false
	}
	inAfter := map[string]bool{}
	for _, f := range strings.Fields(after) {
		inAfter[f] = true
	}
	shared, named := false, false
	low := lower(u.text)
	for _, f := range strings.Fields(before) {
		switch {
		case inAfter[f] && len(f) >= 4 && strings.ContainsAny(f, "/.") && !strings.HasPrefix(f, "-"):
			shared = true // the same file or path: the same action again
		case !inAfter[f] && len(f) >= 4 && strings.Contains(f, "/") && wordIn(low, strings.ToLower(f)):
			named = true // a program path or argument the person named, left out
		}
	}
	return shared && named
}

// wordIn reports whether w occurs in s as a whole word.
func wordIn(s, w string) bool {
	return textutil.BoundedIn(s, w, func(j, end int) bool {
		return (j == 0 || !textutil.IdentByte(s[j-1])) && (end == len(s) || !textutil.IdentByte(s[end]))
	})
}

// index is u's place in tl.utts (the key of tl.after), or -1.
func (tl *timeline) index(u *utterance) int {
	return slices.IndexFunc(tl.utts, func(x utterance) bool { return x.idx == u.idx })
}

// asksForWork reports whether a message of the person's can name the task
// a later correction was made in: three words or more, and no bare
// acknowledgement or go-ahead ("всё", "ok thanks", "continue").
func asksForWork(text string) bool {
	low := lower(strings.TrimSpace(text))
	n := wordCount(low)
	return n >= 3 && (n > 6 || !lexicon.CueAck.AtStart(low) && !lexicon.CueContinue.AtStart(low))
}
