package observations

import (
	"encoding/json"
	"github.com/kbmem/kb/internal/textutil"
	"path"
	"strings"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/traces"
)

// ---------------------------------------------------------------------------
// Preferences.

type preferenceExtractor struct{ tax *Taxonomy }

func (*preferenceExtractor) Type() string { return TypePreference }

var prefRE = textutil.Lazy(`(?i)\b(i (really )?prefer|i'?d (much )?rather|i'?d prefer|we prefer|we always|we never|we (don'?t|do not) use|our (convention|style|standard|rule) is|please always|please never|from now on|going forward|in (the )?future|as a rule|make sure (to|you) always|i (really )?(like|hate|dislike|don'?t like) (it )?when|by convention|we use)\b`)

// constraintRE finds a standing constraint stated inside a request ("...
// and, while keeping it simple and dependency free, propose a plan?"): the
// person's words about how the work must be done, whatever the task.
var constraintRE = textutil.Lazy(`(?i)\bkeep(?:ing)?\s+(?:it|things|everything|this|them|the code(?:base)?)\s+((?:as\s+)?(?:simple|minimal|small|lean|light(?:weight)?|dependency[- ]free|compilation[- ]free|build[- ]free|framework[- ]free|vanilla|plain|self[- ]contained|in (?:one|a single) file|backwards?[- ]compatible)\b[^,;:?!\n]{0,100})`)

// noDepsRE finds "without (adding) any new dependencies".
var noDepsRE = textutil.Lazy(`(?i)\bwithout\s+(?:adding|introducing|pulling in|installing)?\s*(?:any\s+)?(?:new|extra|external|additional|third[- ]party)?\s*(?:dependencies|deps|libraries|packages|frameworks)\b`)

// constraint returns the preference a sentence states as a constraint on a
// request, or "".
func constraint(sent string) string {
	if m := constraintRE.FindStringSubmatch(sent); m != nil {
		// "Keep it simple." alone says too little to be worth recalling.
		if st := phrase("Keep it " + strings.TrimSpace(m[1])); len(strings.Fields(st)) >= 4 {
			return st
		}
	}
	if noDepsRE.MatchString(sent) {
		return "Do not add new dependencies."
	}
	return ""
}

func (e *preferenceExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		corrected, _ := tl.corrected(u, e.tax)
		if corrected > 0 && rejectsProposal(tl, u) {
			continue // a refusal of what the agent proposed, not a taste
		}
		for _, sent := range clauses(u.text) {
			if obj, _ := endorsement(tl, u, sent); obj != "" || len(u.assistant) > 0 && likeChoiceRE.MatchString(sent) {
				continue // a choice among what the agent offered: a decision
			}
			if onlyChoiceWords(sent) {
				continue // "I don't like any approach": about the offer, nothing lasting
			}
			st, explicit := preferenceIn(sent)
			if st != "" && judgesAgentWork(tl, u, sent) {
				continue // "мне не нравится как ты сделал readAlarmLevels": the work, not a taste
			}
			if st == "" && len(u.rejected) > 0 {
				st, explicit = toolSwap(tl, u, sent), true
			}
			// A correction carries the person's words unless they said,
			// in so many words, that this is how they want things.
			if st == "" || (corrected > 0 && !explicit) {
				continue
			}
			if wordCount(st) < 3 {
				lang := askedReplyLanguage(sent)
				if lang == "" {
					continue
				}
				// "türkçe sorar mısın": two words, and a standing preference
				// the agent must be able to read whatever it speaks.
				st = "Answer in " + langName[lang] + " (\"" + strings.TrimRight(st, ".?!？。") + "\")."
			}
			if proposalRefRE.MatchString(st) {
				// "I very much like this idea": the idea is the agent's
				// proposal, which the statement must name to stand alone.
				obj := correctedObject(tl, u, -1)
				if obj == "" {
					continue // a taste about nothing anyone can name later
				}
				st = strings.TrimRight(st, ".。 ") + " (about " + obj + ")."
			}
			types := e.tax.ClassifyText(sent)
			signals := []string{}
			if severityRE.MatchString(sent) {
				signals = append(signals, SignalSeverity)
			}
			if markerRE.MatchString(sent) {
				signals = append(signals, SignalMarker)
			}
			imp := 0.4
			if len(signals) > 0 {
				imp += 0.1
			}
			out = append(out, &Observation{
				Type: TypePreference, Title: shorten(st, 80), Description: "Stated preference",
				Statement: st, Domain: domainOf(sent, types), ActionTypes: types,
				Accepts: 1, Consistency: 1, Confidence: 0.7, Importance: imp, Signals: signals,
				Sources: []SourceRef{tl.sourceRef(u.idx, u.idx)}, Excerpt: "User: " + shorten(u.text, 500),
			})
			break
		}
	}
	return out
}

// identParts are the lower-cased parts of three letters or more of the
// identifiers of s (lexicon.IdentParts): AlarmLevelCodec gives alarm,
// level, codec.
func identParts(s string) map[string]bool {
	out := map[string]bool{}
	for _, id := range strings.FieldsFunc(s, func(r rune) bool { return r > 127 || !textutil.IdentByte(byte(r)) }) {
		for _, p := range lexicon.IdentParts(id) {
			if len(p) >= 3 {
				out[strings.ToLower(p)] = true
			}
		}
	}
	return out
}

// proposalRefRE is a preference's object pointed at, not named: "this
// idea", "that approach", "diese Idee", "este enfoque", "cette idée",
// "этот подход", "这个方案", "この案".
var proposalRefRE = textutil.Lazy(`(?i)\b(?:this|that|the|your)\s+(?:idea|approach|proposal|plan|suggestion|solution|design|option|structure|convention)\b|\b(?:diese[rns]?|dieser|deine[nr]?)\s+(?:idee|ansatz|vorschlag|plan|lösung)\b|\b(?:este|esta|ese|esa|tu)\s+(?:idea|enfoque|propuesta|plan|solución)\b|\b(?:cette|ce|cet|ta|ton)\s+(?:idée|approche|proposition|plan|solution)\b|(?:эт[аоу]т?|эту|ваш[ау]?)\s+(?:идея|идею|подход|план|предложение|решение)|(?:这个|那个|你的)(?:想法|方案|主意|思路|建议)|(?:この|その)(?:案|アイデア|方法|提案)`)

// preferenceIn returns the preference a sentence states, in any language,
// and whether the person said it as one in so many words ("I prefer",
// "from now on", "ich bevorzuge", "我更喜欢"), not only as a constraint on
// a request ("keeping it simple", "without new dependencies"). A
// question states no preference, but a constraint can sit in one.
func preferenceIn(sent string) (string, bool) {
	st, standing := preferenceRule(sent)
	if wordCount(st) == 0 {
		// A cue with nothing it is about ("I prefer .") states nothing.
		return "", false
	}
	return st, standing
}

// preferenceRule is the rule that reads sent as a preference, if one does.
func preferenceRule(sent string) (string, bool) {
	q := isQuestion(sent)
	if !q && replyLanguageRE.MatchString(sent) {
		// "j'aimerais que tout soit en français lors de nos échanges",
		// "always answer me in English", "以后用中文回答": the language the
		// person wants to be answered in, a standing preference.
		return prefStatement(sent), true
	}
	if loc := replyStyleRE.FindStringIndex(sent); !q && loc != nil && !listItemRE.MatchString(sent) {
		// "give me realistic answers ... not just to make me happy",
		// "keep your answers short", "no emojis", "sei ehrlich": how the
		// person wants to be answered, a standing preference, from the
		// clause that says it ("..., what do you think, give me realistic
		// answers").
		if i := strings.LastIndexAny(sent[:loc[0]], ",;:，；："); i >= 0 {
			sent = strings.TrimLeft(sent[i+1:], " ,;:，；：")
		}
		return prefStatement(sent), true
	}
	if !q {
		if loc := prefCues.find(sent); loc != nil && topicAfter(sent, loc) {
			return prefStatement(sent), true
		}
		if simpleWantRE.MatchString(sent) && wordCount(sent) >= 4 {
			return prefStatement(sent), true
		}
		if englishRE.MatchString(sent) && prefRE.MatchString(sent) {
			return prefStatement(sent), true
		}
	}
	if low := lower(sent); !q && standingRule(sent, low) {
		// "always run the linter before committing", "запомни правило:
		// не делать выводов на догадках": a rule said to hold for all the
		// work to come is how the person wants things. Said while
		// correcting, "never force-push main" is the correction's own
		// rule; "remember" or "from now on" makes it a preference too.
		return prefStatement(sent), lexicon.CueRemember.In(low) || lexicon.CueNextTime.In(low)
	}
	if st := constraint(sent); st != "" {
		return st, false
	}
	if m := simpleWayRE.FindStringSubmatch(sent); m != nil {
		return "Prefer " + strings.ToLower(m[1]) + " " + strings.TrimRight(strings.TrimSpace(m[2]), ".?!") + ".", false
	}
	if workflowCues.match(sent) && wordCount(sent) >= 3 {
		// "make a plan but don't execute, I want to review it first":
		// how the person wants work to start, said for good.
		return prefStatement(sent), true
	}
	if simplicityCues.match(sent) && wordCount(sent) >= 4 {
		return prefStatement(sent), false
	}
	return "", false
}

// ruleWordRE is "the rule" after "remember", or the "to" or "that" it
// opens its object with, in the cue languages.
var ruleWordRE = textutil.Lazy(`(?i)^\s*(?:(?:the\s+|this\s+)?(?:rule|regel|règle|regla|regra|regola|правило|规则|ルール|규칙)\b?\s*[:：,，]?\s*|(?:to|that|dass|que|что|чтобы)\s+)`)

// withoutRemember is sent without an opening request to remember ("Remember
// the rule: we never push to main", "Запомни правило не делать ...",
// "记住：..."): the rule itself, which is what stands.
func withoutRemember(sent string) string {
	low := lower(sent)
	i, end := lexicon.CueRemember.Span(low)
	if i < 0 || strings.TrimSpace(low[:i]) != "" || len(low) != len(sent) {
		return sent
	}
	rest := strings.TrimLeft(sent[end:], " :：,，、—-")
	if loc := ruleWordRE.FindStringIndex(rest); loc != nil {
		rest = rest[loc[1]:]
	}
	if wordCount(rest) < 3 {
		return sent
	}
	return rest
}

// standingRule reports whether sentence s (low: lower-cased) states a
// rule (statesRule, or asks in words) and says it holds from now on: always or never, every
// time, next time, remember (lexicon.CueStanding). "diff_commits seems to
// always return colour" names code beside "always" and states nothing.
func standingRule(s, low string) bool {
	return lexicon.CueStanding.In(low) && (lexicon.CueRule.In(low) || asksInWords(s))
}

// simpleWayRE is a constraint stated as the way the person wants a thing
// done: "a simple way to X without Y", "eine einfache Möglichkeit, X ohne
// Y", "una forma sencilla de X sin Y", even inside a question.
var simpleWayRE = textutil.Lazy(`(?i)\b(a (?:simple|simpler|clean|cleaner|minimal|lightweight|easy) (?:way|method|approach)|eine? (?:einfache[nr]?|saubere[nr]?) (?:weg|möglichkeit|lösung)|una? (?:forma|manera|solución) (?:simple|sencilla|más simple|más limpia|limpia))\b[,]?\s+((?:to|de|um|zu)?\s*[^?!.]{3,120}?\s(?:without|ohne|sin)\s[^?!.]{3,120})`)

// simpleWantRE is the person saying they want the thing simple: "I just
// want a very simple poll", "ich will nur eine einfache Abfrage", "solo
// quiero una consulta sencilla", "我只想要一个简单的轮询", "シンプルな…がいい".
var simpleWantRE = textutil.Lazy(`(?i)\bi\s+(?:just\s+|only\s+|really\s+)?want\s+(?:it\s+to\s+be\s+|a\s+|an\s+|the\s+)?(?:very\s+|really\s+|super\s+)?(?:simple|simpler|minimal|plain|basic|lightweight)\b|\bich\s+(?:will|möchte)\s+(?:nur\s+)?(?:eine?n?\s+)?(?:ganz\s+)?(?:einfache|simple|schlichte)|\b(?:solo\s+)?quiero\s+(?:un|una)\s+\S+\s+(?:muy\s+)?(?:simple|sencill[oa])|我只想要.{0,4}简单|我想要.{0,4}简单|シンプルな.{1,20}がいい|хочу\\s+(?:просто\\s+)?(?:очень\\s+)?(?:простой|простую|простое)|간단한.{1,20}(?:원해|좋겠)`)

// englishRE tells a sentence in a Latin script (the English rules' own
// regular expressions apply) from one in another.
var englishRE = textutil.Lazy(`^[\x00-\x7F’“”…–—]*$`)

// topicAfter reports whether a preference cue at loc is about something:
// a content word (or CJK bigram) in the sentence besides the cue that is
// no acknowledgement ("I like it, thanks" says nothing lasting; "I like
// small commits" does).
func topicAfter(sent string, loc []int) bool {
	rest := sent[:loc[0]] + " " + sent[loc[1]:]
	n := 0
	for tok := range topicTokens(rest) {
		if !ackWords[tok] {
			n++
		}
	}
	return n >= 1
}

// ackWords are what "I like it, thanks" is about: nothing lasting.
var ackWords = map[string]bool{"thank": true, "thanks": true, "ok": true, "okay": true, "good": true, "great": true, "nice": true,
	"cool": true, "perfect": true, "work": true, "look": true, "so": true, "far": true, "now": true}

// prefStatement words a sentence as the statement of a preference: English
// phrased as an instruction, any other language kept in the person's words.
func prefStatement(sent string) string {
	sent = withoutRemember(sent)
	if englishRE.MatchString(sent) {
		return phrase(stripLead(sent, true))
	}
	s := strings.TrimSpace(sent)
	return capitalize(s)
}

// clauses splits text into sentences, also at the CJK full stops (。！？),
// which need no space after them.
func clauses(text string) []string {
	var out []string
	for _, s := range sentences(text) {
		start := 0
		for i, r := range s {
			if r == '。' || r == '！' || r == '？' || r == '；' {
				end := i + len(string(r))
				if t := strings.TrimSpace(s[start:end]); t != "" {
					out = append(out, t)
				}
				start = end
			}
		}
		if t := strings.TrimSpace(s[start:]); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// swapRE is a reason that names another program: "use pnpm", "verwende
// pnpm", "usa pnpm", "用 pnpm".
var swapRE = textutil.Lazy(`(?i)^(?:please\s+|bitte\s+|por favor\s+|请)?(?:use|verwende|benutze|nimm|usa|utiliza|utilise|используй|用|使用|改用)\s*` + "`?" + `([A-Za-z][\w.+-]{1,30})` + "`?" + `\s*(?:instead|stattdessen|en su lugar|вместо)?[.!。]?$`)

// toolSwap reads a refusal whose reason names another program for the
// command the person refused ("use pnpm" when npm was about to run): a
// lasting choice of tool, said as briefly as people say it.
func toolSwap(tl *timeline, u *utterance, sent string) string {
	m := swapRE.FindStringSubmatch(strings.TrimSpace(sent))
	if m == nil {
		return ""
	}
	want := m[1]
	for _, ci := range u.rejected {
		prog := commandProgram(tl.rec(ci))
		if prog != "" && !strings.EqualFold(prog, want) {
			return "Use " + want + " instead of " + prog + "."
		}
	}
	return ""
}

// commandProgram is the program a shell tool call runs, "" for another tool.
func commandProgram(r *traces.Record) string {
	cmd := callCommand(r)
	f := strings.Fields(cmd)
	for len(f) > 0 && (strings.Contains(f[0], "=") || f[0] == "sudo" || f[0] == "cd" || f[0] == "&&") {
		if f[0] == "cd" && len(f) > 2 {
			f = f[2:]
			continue
		}
		f = f[1:]
	}
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], "\\\"'")
}

// domainOf names the area a preference is about.
func domainOf(text string, types []string) string {
	for _, t := range types {
		d, _, _ := strings.Cut(t, ":")
		switch d {
		case "git":
			return "git"
		case "test":
			return "testing"
		case "pkg":
			return "deps"
		case "style", "lint", "js", "ts", "py":
			return "style"
		case "docs":
			return "docs"
		case "sql", "db":
			return "database"
		case "deploy", "infra", "k8s", "docker":
			return "infra"
		case "code":
			return "code"
		}
	}
	w := contentStems(text)
	switch {
	case w["name"] || w["nam"] || w["naming"] || w["camelcas"] || w["snake"]:
		return "naming"
	case w["comment"] || w["readm"] || w["doc"] || w["docs"]:
		return "docs"
	case w["format"] || w["indent"] || w["style"] || w["emoji"]:
		return "style"
	case w["test"]:
		return "testing"
	case w["commit"] || w["branch"]:
		return "git"
	}
	return "general"
}

// callCommand is the shell command line of a tool call, "" when it runs
// none.
func callCommand(r *traces.Record) string {
	var m map[string]any
	if json.Unmarshal(r.Input, &m) != nil {
		return ""
	}
	switch v := m["command"].(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		if n := len(parts); n >= 3 && shells[path.Base(parts[0])] {
			return parts[n-1]
		}
		return strings.Join(parts, " ")
	}
	if s, ok := m["cmd"].(string); ok {
		return s
	}
	return ""
}

// listItemRE is a line of a list: a bullet of a pasted document or prompt
// template ("- Keep explanations short, direct, and specific"), not
// something said to the agent.
var listItemRE = textutil.Lazy(`^\s*(?:[-*•]|\d+[.)])\s`)

// replyStyleRE is the person asking how to be answered: honestly and
// without flattery, briefly, without emojis or apologies, in the
// languages people write to agents in.
var replyStyleRE = textutil.Lazy(`(?i)\b(?:(?:give me|i want|i need)\s+(?:\w+\s+)?(?:honest|realistic|blunt|straight|direct|critical|short|brief|concise|shorter)\s+(?:answers?|feedback|opinions?|responses?|replies)|(?:be|stay)\s+(?:brutally\s+)?(?:honest|blunt|critical|realistic|direct)\s+with me|(?:don'?t|do not|stop|never)\s+(?:just\s+)?(?:worship|flatter|praise|sugarcoat|glaze|suck up to|butter)(?:ing)?\s+(?:me|it)|(?:don'?t|do not|stop)\s+(?:just\s+)?(?:agree|agreeing)\s+with (?:me|everything)|not just (?:to )?(?:make|keep) me happy|no (?:sugar-?coating|flattery|emojis?|yapping|fluff)|(?:keep|make)\s+(?:your\s+)?(?:answers?|responses?|replies|explanations?)\s+(?:short|brief|concise|shorter)|(?:stop|don'?t keep|quit)\s+apologi[sz]ing|push back (?:on me|when|if)|sei (?:bitte )?ehrlich|keine emojis|kürzere antworten|sois honnête|pas d'?(?:émojis|emojis)|réponses? courtes?|s[ée] honest[oa]|sin emojis|respuestas cortas|seja honest[oa]|sem emojis|respostas curtas|будь чест(?:ен|ной)|без эмодзи|без лести|короче отвечай)\b|说实话|别拍马屁|不要奉承|不要吹捧|简短(?:地)?回答|不要(?:用)?表情|正直に(?:答え|言っ)|お世辞は(?:いらない|不要)|簡潔に(?:答え|して)|絵文字(?:なし|は不要|を使わない)|솔직하게 (?:말해|답해)|아부하지 마|짧게 (?:답해|대답)|이모지 (?:빼|쓰지 마)`)

// replyLanguageRE is the person asking to be answered, or to work with
// them, in a language: a verb of talking to them (answer, reply, talk,
// our exchanges) or a standing quantifier (always, everything, from now
// on) with a language named, in the languages people write to agents in.
// A task in a language ("write the README in French") names no verb of
// talking to the person and no standing quantifier, and is not one.
var replyLanguageRE = textutil.Lazy(`(?i)\b(?:answer|respond|reply|talk|speak|communicate|chat|converse|always|everything|from now on)\b[^.?!\n]{0,50}\bin (?:english|french|german|spanish|portuguese|italian|russian|chinese|mandarin|japanese|korean|dutch|polish|turkish|czech|ukrainian|vietnamese|indonesian|hindi|arabic|thai|hebrew|greek|persian|farsi|swedish|norwegian|danish|finnish|hungarian|romanian|bulgarian|serbian|croatian|slovak|catalan|malay|tagalog|bengali|urdu)\b|\b(?:r[ée]pond|[ée]cri[st]|parle|[ée]changes?|tout|toujours|conversation)\w*\b[^.?!\n]{0,50}\ben (?:fran[çc]ais|anglais|allemand|espagnol|italien|portugais|chinois|japonais|cor[ée]en|russe)\b|\b(?:antwort|schreib|sprich|rede|alles|immer|kommunizier)\w*\b[^.?!\n]{0,50}\bauf (?:deutsch|englisch|franz[öo]sisch|spanisch)\b|\b(?:respond|contest|escrib|habl|todo|siempre|comunica)\w*\b[^.?!\n]{0,50}\ben (?:espa[ñn]ol|castellano|ingl[ée]s|franc[ée]s|portugu[ée]s)\b|\b(?:respond|escrev|fal|tudo|sempre|comunica)\w*\b[^.?!\n]{0,50}\bem (?:portugu[êe]s|ingl[êe]s|espanhol)\b|\b(?:rispond|scriv|parl|tutto|sempre|comunica)\w*\b[^.?!\n]{0,50}\bin (?:italiano|inglese|francese|tedesco)\b|(?:отвеча|пиш|говор|всегда|вс[её]|общ)[а-яё]*[^.?!\n]{0,50}на (?:русском|английском|украинском)|(?:用|以)(?:中文|英文|日文|韩文|简体中文|繁体中文|汉语|英语)(?:来)?(?:回答|回复|交流|沟通|对话|说|写|输出)|(?:日本語|英語|中国語|韓国語)で(?:回答|返答|答え|話|書い|やり取り|対応|お願い)|(?:한국어|영어|일본어|중국어)로\s?(?:답|대답|말|써|작성|대화|응답)|ตอบ(?:เป็น)?ภาษา(?:ไทย|อังกฤษ)|\b(?:türkçe|ingilizce)\s+(?:cevap|yanıt|yaz|konuş|sor|anlat|açıkla)|\b(?:trả lời|viết|nói)\s[^.?!\n]{0,30}bằng tiếng (?:việt|anh)|\b(?:jawab|balas|tulis|bicara)\w*\s[^.?!\n]{0,30}\b(?:dalam )?bahasa (?:indonesia|inggris|melayu)|\b(?:odpowiadaj|odpowiedz|pisz|mów|rozmawiaj)\S*\s[^.?!\n]{0,30}\bpo (?:polsku|angielsku)|\b(?:odpovídej|odpověz|piš|mluv)\S*\s[^.?!\n]{0,30}(?:česky|anglicky|v češtině)|(?:відповіда|пиш|говор|спілкуй)[а-яіїєґ]*[^.?!\n]{0,40}(?:українською|англійською)|\b(?:antwoord|schrijf|praat|spreek)\w*\s[^.?!\n]{0,30}\bin het (?:nederlands|engels)|(?:أجب|اكتب|رد|تحدث)[^.?!\n]{0,30}(?:بالعربية|باللغة العربية|بالإنجليزية)|(?:به فارسی|به انگلیسی)\s?(?:جواب|پاسخ|بنویس|صحبت)|(?:ענה|תענה|כתוב|דבר)[^.?!\n]{0,30}(?:בעברית|באנגלית)|(?:απάντα|γράφε|μίλα)[^.?!\n]{0,30}στα (?:ελληνικά|αγγλικά)`)

// judgesAgentWork reports whether a like or dislike is about what the
// agent made in this session rather than a lasting taste: it names the
// agent's doing ("how you did it", "your code": lexicon.CueYourWork), or
// an identifier of code the agent wrote or named ("ReadAlarmLevels мне не
// нравится", "I don't like handleSubmitV2"): a name of the work, which no
// later session shares. Such a judgment corrects the work (the correction
// extractor keeps it) and says nothing of how work should be done.
func judgesAgentWork(tl *timeline, u *utterance, sent string) bool {
	if len(u.assistant) == 0 && len(u.calls) == 0 {
		return false
	}
	low := lower(sent)
	if lexicon.CueYourWork.In(low) {
		return true
	}
	var work string
	if _, end := lexicon.CueDislike.Span(low); end >= 0 {
		// "Мне не нравится codec", "J'aime pas next": a dislike of a
		// thing or two the agent's work just named is about that work.
		obj := low[end:]
		if ws := topicTokens(obj); len(ws) > 0 && len(ws) <= 3 {
			raw := agentWork(tl, u)
			work = strings.ToLower(raw)
			parts := identParts(raw)
			for w := range ws {
				if wordIn(work, w) || parts[w] {
					return true
				}
			}
		}
	}
	for _, m := range codeIdentRE.FindAllString(sent, 4) {
		if work == "" {
			work = strings.ToLower(agentWork(tl, u))
		}
		if wordIn(work, strings.ToLower(strings.Trim(m, "`"))) {
			return true
		}
	}
	return false
}

// codeIdentRE is a name only code has: camelCase or PascalCase with a
// capital inside, snake_case, or a span in backquotes.
var codeIdentRE = textutil.Lazy("`[^`\\n]{2,60}`|\\b[A-Za-z][a-z0-9]+[A-Z][A-Za-z0-9]*\\b|\\b[a-z][a-z0-9]*_[a-z0-9_]+\\b")
