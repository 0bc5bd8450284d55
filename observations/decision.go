package observations

import (
	"github.com/kbmem/kb/internal/textutil"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/lexicon"
)

// ---------------------------------------------------------------------------
// Decisions.

type decisionExtractor struct{ tax *Taxonomy }

func (*decisionExtractor) Type() string { return TypeDecision }

var (
	choiceRE      = textutil.Lazy(`(?i)\b(let'?s|we'?ll|i'?ll|we should|i want to|i'?d like to)\s+(go with|use|do|pick|choose|stick with|try|take|keep)\s+(the\s+)?([^.,!;?\n]{2,60})`)
	optionRE      = textutil.Lazy(`(?i)\b(option|approach|choice|alternative|solution)\s*#?\s*([0-9]+|[a-d])\b`)
	ordinalRE     = textutil.Lazy(`(?i)\b(the\s+)?(first|second|third|fourth|last)\s+(one|option|approach|choice)\b`)
	altLineRE     = textutil.Lazy(`(?m)^[ \t]*(?:#{1,4}[ \t]*)?(?:\d+[.)]|[-*•]|(?:Option|Approach|Alternative)[ \t]+[0-9A-Za-z]+[:.)]?)[ \t]*(?:\*\*)?(?:(?:Option|Approach)[ \t]+[0-9A-Za-z]+[:.)]?[ \t]*)?([^*:\n]{2,160}?)(?:\*\*)?(?:(?:[ \t]*[:(]|[ \t]+[\-–—])[ \t]*(.*))?$`)
	optionLineRE  = textutil.Lazy(`(?m)^\s*(?:#{1,4}\s*)?\**\s*(?:Option|Approach|Alternative|Choice)\s+[0-9A-Za-z]+\s*[:.)\-–—]\s*\**\s*([^*\n(:]{2,60}?)\s*\**\s*(?:[:\-–—(]\s*(.*?)\)?)?\s*$`)
	optionsWordRE = textutil.Lazy(`(?i)\b(options?|approach(es)?|alternatives?|either|could (use|go|do)|recommend|trade-?offs?|pros|cons|choices?)\b`)
)

func (e *decisionExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	out := e.uiChoices(tl)
	for k := range tl.utts {
		u := &tl.utts[k]
		if ds := e.answered(tl, u); len(ds) > 0 {
			out = append(out, ds...)
			continue
		}
		if d := e.offered(tl, u); d != nil {
			out = append(out, d)
			continue
		}
		if d := e.contrasted(tl, u); d != nil {
			out = append(out, d)
		} else if d := e.proposed(tl, u); d != nil {
			out = append(out, d)
		} else if d := e.respecified(tl, u); d != nil {
			out = append(out, d)
		} else if d := e.endorsed(tl, u); d != nil {
			out = append(out, d)
		} else if d := e.compatibility(tl, u); d != nil {
			out = append(out, d)
		} else if d := e.allowed(tl, u); d != nil {
			out = append(out, d)
		} else if d := e.settled(tl, u); d != nil {
			out = append(out, d)
		}
	}
	return out
}

// pickedIndex reads which offered option a reply picks by its place or
// label, in any language: "option 2", "the second one", "go with B",
// "zweite Variante", "方案二", "第二种", "2番目", "두 번째"; -2 is "the last",
// -1 none. A reply that is only a label ("B", "2)", "Option C") picks it.
func pickedIndex(text string) int {
	if m := optionRE.FindStringSubmatch(text); m != nil {
		return optionIndex(m[2])
	}
	if m := ordinalRE.FindStringSubmatch(text); m != nil {
		return map[string]int{"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -2}[strings.ToLower(m[2])]
	}
	if m := bareLabelRE.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
		return optionIndex(m[1])
	}
	if m := optionWordRE.FindStringSubmatch(text); m != nil {
		for _, g := range m[1:] {
			if g != "" {
				return optionIndex(g)
			}
		}
	}
	low := strings.ToLower(text)
	if wordCount(text) <= 12 {
		for i, words := range lexicon.OrdinalCues {
			for _, w := range words {
				if ordinalCue(low, w) {
					return i
				}
			}
		}
	}
	return -1
}

// ordinalCue reports whether ordinal w stands in low as a word (CJK: as
// the ordinal of a choice, "第二种", "第二个", "二つ目").
func ordinalCue(low, w string) bool {
	i := strings.Index(low, w)
	if i < 0 {
		return false
	}
	if strings.IndexFunc(w, isCJK) >= 0 {
		return true
	}
	before, after := low[:i], low[i+len(w):]
	okB := before == "" || !isWordRune(lastRune(before))
	okA := after == "" || !isWordRune(firstRune(after))
	return okB && okA
}

func isWordRune(r rune) bool  { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }
func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

var (
	// bareLabelRE is a reply that is only an option's label.
	bareLabelRE = textutil.Lazy(`(?i)^(?:option\s+|approach\s+|variante\s+|opción\s+|вариант\s+)?([1-8a-h])[).:]?\s*(?:please|pls|bitte|por favor|пожалуйста)?[.!]?$`)
	// optionWordRE is an option named by a word and a label in another
	// language: "Variante B", "opción 2", "вариант 2", "方案二", "选项2",
	// "案2", "옵션 2", "2번".
	optionWordRE = textutil.Lazy(`(?i)(?:variante|möglichkeit|opción|alternativa|вариант|punkt|punto|ponto|пункт)\s*#?\s*([0-9]+|[a-d])\b|(?:方案|选项|案|옵션|オプション)\s*([0-9A-Da-d一二三四])|([0-9])\s*번(?:째)?`)
)

// optionsAskRE is the agent asking which way to go, in the languages
// people write to agents in: with a list of options and a reply that
// picks one by place or label, a question.
var optionsAskRE = textutil.Lazy(`(?i)\bwhich\b|\bhow (?:should|shall|do you want)\b|どちら|どれ|どう進め|どうします|哪个|哪种|哪一|怎么处理|如何处理|어느|어떤|어떻게 할|어떻게 진행|\bwelche[rsn]?\b|\bquel(?:le)?s?\b|cuál|\bqual\b|какой|какую|который|как (?:поступить|продолжить)`)

// endsWithNumberedList reports whether the agent's text ends with a
// numbered list of two to eight items ("Wenn du willst, kann ich als
// nächsten Schritt: 1. ... oder 2. ...", "どう進めますか？ 1. ... 2. ..."): the
// next steps it offers, which a reply that names a number picks from.
func endsWithNumberedList(txt string) bool {
	lines := strings.Split(strings.TrimSpace(txt), "\n")
	n, want := 0, 0
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		m := numberedItemRE.FindStringSubmatch(l)
		if m == nil {
			if n == 0 && i >= len(lines)-2 {
				continue // a closing line after the list ("어느 쪽이든 알려주시면")
			}
			if subItemRE.MatchString(lines[i]) {
				continue // an item's own indented points ("   - 예상 시간: 10분")
			}
			break
		}
		k, _ := strconv.Atoi(m[1])
		if want != 0 && k != want {
			break
		}
		n, want = n+1, k-1
		if k == 1 {
			return n >= 2 && n <= 8
		}
	}
	return false
}

var numberedItemRE = textutil.Lazy(`^(\d)[.)]\s+\S`)

// labelsOrRE is the agent asking for one label of its list, the labels
// joined by "or": "(1, 2, 또는 3)", "1, 2, or 3?", "1还是2".
var labelsOrRE = textutil.Lazy(`(?i)\b1(?:\s*[,、/]\s*\d)*\s*[,、]?\s*(?:(?:` + orSpaced + `)\s+|(?:` + orUnspaced + `|或)\s*)\d\b`)

// subItemRE is an indented point under a list's item.
var subItemRE = textutil.Lazy(`^[ \t]+[-*•+]\s+\S`)

// orJointRE is an item of a list ending or starting with "or": the items
// exclude each other ("1. ... , or", "2. Oder ...", "或者", "それとも").
var orJointRE = textutil.Lazy(`(?i)(?:[,;]?\s(?:or|oder|o|ou|ou bien|или|либо|albo|lub|of|veya)\s*[:.]?$|^\d[.)]\s+(?:or|oder|o|ou|или|либо|albo|lub|of|veya)\b)|或者|还是|または|それとも|아니면|또는`)

// exclusive reports whether the items of a closing list (closingList)
// are alternatives (joined by "or"), not a menu of next steps.
func exclusive(items [][]string) bool {
	for _, it := range items {
		if orJointRE.MatchString(it[0]) {
			return true
		}
	}
	return false
}

// askedBeforeList reports whether the line just above the numbered list
// txt closes with is a question ("¿Cómo quieres que proceda?", "Wie soll
// ich weitermachen?", "どうしますか？"): the list answers it, so its items
// are the choices offered, in whatever language the question is asked.
func askedBeforeList(txt string) bool {
	lines := strings.Split(strings.TrimSpace(txt), "\n")
	first := closingListStart(lines)
	if first < 0 {
		return false
	}
	for i := first - 1; i >= 0; i-- {
		l := strings.TrimRight(strings.TrimSpace(lines[i]), "*_:： ")
		if l == "" {
			continue
		}
		return strings.HasSuffix(l, "?") || strings.HasSuffix(l, "？") || strings.HasSuffix(l, "؟")
	}
	return false
}

// closingListStart is the index of the line that opens the numbered list
// lines end with (its "1."), -1 if none.
func closingListStart(lines []string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if m := numberedItemRE.FindStringSubmatch(strings.TrimSpace(lines[i])); m != nil && m[1] == "1" {
			return i
		}
	}
	return -1
}

// closingList is the items of the numbered list txt ends with
// (endsWithNumberedList), each as altLineRE's submatches: the whole line,
// the item without its number and markup, no reasoning.
func closingList(txt string) [][]string {
	lines := strings.Split(strings.TrimSpace(txt), "\n")
	if i := closingListStart(lines); i >= 0 {
		var out [][]string
		for _, l := range lines[i:] {
			l = strings.TrimSpace(l)
			if !numberedItemRE.MatchString(l) {
				continue
			}
			if m := altLineRE.FindStringSubmatch(l); m != nil {
				out = append(out, m)
			} else {
				out = append(out, []string{l, cleanMarkup(strings.TrimSpace(l[2:])), ""})
			}
		}
		return out
	}
	return nil
}

// tableOptionRE is a table row that labels an option: "| A | Next.js |".
var tableOptionRE = textutil.Lazy(`(?m)^\s*\|\s*\**([A-Za-z0-9])\**\s*\|\s*([^|\n]{2,300}?)\s*\|`)

// foldWidth maps full-width ASCII ("２", "Ｂ") to ASCII, as IMEs type it.
func foldWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '！' && r <= '～' {
			return r - '！' + '!'
		}
		return r
	}, s)
}

// labelLetters reads a reply that is only a label typed on another
// keyboard layout as the Latin label it looks like: "С" (Cyrillic es)
// after options A-E is option C. Longer replies are left as they are.
func labelLetters(s string) string {
	t := strings.TrimSpace(s)
	if utf8.RuneCountInString(t) > 3 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if l, ok := latinLookalike[r]; ok {
			return l
		}
		return r
	}, t)
}

// latinLookalike maps Cyrillic and Greek letters to the Latin label
// letters they look like.
var latinLookalike = map[rune]rune{'А': 'A', 'В': 'B', 'С': 'C', 'Е': 'E', 'Н': 'H', 'а': 'a', 'в': 'b', 'с': 'c', 'е': 'e',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Η': 'H', 'α': 'a', 'β': 'b'}

// letterLineRE is an option on its own line under a letter label, bold or
// not: "**a)** a faster UI layer, or", "**D. Split the display.** ...",
// "(b) keep both", "- C: the queue".
var letterLineRE = textutil.Lazy(`(?m)^[ \t]*(?:[-*•][ \t]+)?(\*\*)?\(?([A-Ha-h])[.):](\*\*)?[ \t]+(.+?)[ \t]*$`)

// letteredOptions are the options of txt under letter labels in order
// from a (letterLineRE), two to eight: each named by its bold part when
// the label opens one, else by its line, "or" and a question mark left
// off; what follows the bold part is its reasoning.
func letteredOptions(txt string) [][]string {
	var out [][]string
	for _, m := range letterLineRE.FindAllStringSubmatch(txt, 12) {
		if int(unicode.ToLower(rune(m[2][0]))-'a') != len(out) {
			if len(out) >= 2 {
				break
			}
			out = nil
			if unicode.ToLower(rune(m[2][0])) != 'a' {
				continue
			}
		}
		name, why := m[4], ""
		if m[1] != "" && m[3] == "" {
			// "**D. Split the display.** `offScale` on its own line":
			// the bold part names it.
			if i := strings.Index(name, "**"); i > 0 {
				name, why = name[:i], name[i+2:]
			}
		}
		name = strings.ReplaceAll(name, "**", "")
		name = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(name), "?,;:. "))
		name = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(name, " or"), ","))
		out = append(out, []string{m[0], name, strings.TrimSpace(why)})
	}
	if len(out) < 2 || len(out) > 8 {
		return nil
	}
	return out
}

// likeChoiceRE is the person liking one of the options before them: "I
// like option 2", "I prefer the flag approach", "I'm leaning towards X".
var likeChoiceRE = textutil.Lazy(`(?i)\bi (?:really |also |actually )?(?:like|prefer)\s+((?:the\s+)?(?:option|approach|variant|alternative|choice)\s*#?\s*(?:[0-9]+|[a-d])\b[^.,!;?\n]{0,60})|\bi'?m leaning (?:towards?|to)\s+([^.,!;?\n]{2,60})`)

// labelledOptions are the options the agent's replies since the
// previous utterance name by label ("Option 1", "Option 2", "Approach
// B"), in label order, when there are two to eight of them.
func labelledOptions(tl *timeline, u *utterance) []Alternative {
	seen := map[string]bool{}
	var out []Alternative
	for _, a := range u.assistant {
		for _, m := range optionRE.FindAllStringSubmatch(tl.rec(a).Text, 40) {
			label := strings.ToUpper(m[2])
			if seen[label] {
				continue
			}
			seen[label] = true
			out = append(out, Alternative{Name: lexicon.Capitalize(strings.ToLower(m[1])) + " " + label})
		}
	}
	slices.SortFunc(out, func(a, b Alternative) int { return strings.Compare(a.Name, b.Name) })
	if len(out) < 2 || len(out) > 8 {
		return nil
	}
	return out
}

// offered reads u as the person choosing among options the agent laid out
// since the previous utterance: by place or label, or by naming one
// ("let's do vite", "nehmen wir Vite", "就用 vite").
func (e *decisionExtractor) offered(tl *timeline, u *utterance) *Observation {
	if len(u.assistant) == 0 {
		return nil
	}
	choice := ""
	liked := false
	if m := choiceRE.FindStringSubmatch(u.text); m != nil {
		choice = strings.TrimSpace(m[4])
	} else if loc := choiceCues.find(u.text); loc != nil {
		choice = strings.TrimSpace(u.text[loc[1]:])
		if wordCount(choice) == 0 {
			// "PostgreSQL ile devam edelim", "Redisにします": the cue of a
			// verb-final language follows what is chosen.
			choice = strings.TrimSpace(u.text[:loc[0]])
		}
	} else if m := likeChoiceRE.FindStringSubmatch(u.text); m != nil {
		// "I did a proof of concept with option 1. But I like option 2":
		// the option the person likes, after the agent laid them out.
		choice, liked = strings.TrimSpace(m[1]), true
	}
	reply := labelLetters(foldWidth(u.text))
	idx := pickedIndex(reply)
	if liked {
		idx = pickedIndex(foldWidth(choice))
	}
	// A reply that is only a label ("B", "2", "２") answers the list
	// above it, whatever words the question was asked in.
	bm := bareLabelRE.FindStringSubmatch(strings.TrimSpace(reply))
	bare := bm != nil
	// A pick by a letter ("b", "C", "option D"): the options are under
	// letter labels.
	byLetter := false
	if bare {
		byLetter = bm[1][0] > '9'
	} else if m := optionRE.FindStringSubmatch(reply); m != nil {
		byLetter = m[2][0] > '9'
	}
	inline := false
	if choice == "" && idx == -1 {
		// "Single role is fine": a reply that opens by naming one of two
		// alternatives the agent put side by side ("single-role vs
		// multi-role").
		if choice = inlineChoice(tl, u); choice == "" {
			return nil
		}
		inline = true
	}
	// Alternatives the agent laid out since the previous utterance.
	var alts []Alternative
	if inline {
		alts, _ = inlineAlternatives(tl, u)
	}
	for _, a := range u.assistant {
		if inline {
			break
		}
		txt := tl.rec(a).Text
		if !bare && !optionsWordRE.MatchString(txt) && !optionsAnyRE.MatchString(txt) && !(idx >= 0 && (optionsAskRE.MatchString(txt) || endsWithNumberedList(txt))) {
			continue
		}
		var found []Alternative
		lines := optionLineRE.FindAllStringSubmatch(txt, 12)
		lettered := false
		if byLetter && len(lines) < 2 {
			// "**a)** ..., or **b)** ...?" answered "b": the options
			// under letter labels, not the bullets of the report above
			// nor a numbered list of next steps after them.
			if ls := letteredOptions(txt); len(ls) >= 2 {
				lines, lettered = ls, true
			}
		}
		if idx >= 0 && !lettered && endsWithNumberedList(txt) {
			// A pick by number answers the list the text closes with, not
			// the bullets of the report above it; a closing menu of next
			// steps with no "or" between them offers no alternatives.
			items := closingList(txt)
			if !optionsAskRE.MatchString(txt) && !optionsWordRE.MatchString(txt) && !exclusive(items) && !askedBeforeList(txt) &&
				!labelsOrRE.MatchString(tailOf(txt, 300)) {
				continue
			}
			lines = items
		}
		if len(lines) < 2 {
			lines = altLineRE.FindAllStringSubmatch(txt, 12)
		}
		if len(lines) < 2 {
			// | A | React (Vite) frontend |: a table of labelled options.
			lines = nil
			for _, m := range tableOptionRE.FindAllStringSubmatch(txt, 12) {
				lines = append(lines, []string{m[0], m[2], ""})
			}
		}
		for _, m := range lines {
			name := strings.Trim(strings.TrimSpace(m[1]), "`*_ ")
			if name == "" {
				continue
			}
			if f := strings.Fields(name); len(f) > 10 {
				// An option said as a sentence ("시안에서 중요한 구조를
				// 설명해 주시면 ... 바꿔 드릴게요"): its first words name it.
				name = strings.Join(f[:10], " ") + "…"
			}
			found = append(found, Alternative{Name: name, Reasoning: shorten(strings.Trim(m[2], "* "), 160)})
		}
		if len(found) >= 2 && len(found) <= 8 {
			alts = found
		}
	}
	if len(alts) < 2 && idx >= 0 && !inline {
		// Options the agent named in its prose ("Cleaner than a separate
		// endpoint (Option 1)"), picked by their label.
		alts = labelledOptions(tl, u)
	}
	if len(alts) < 2 {
		return nil
	}
	chosen := -1
	switch {
	case idx == -2:
		chosen = len(alts) - 1
	case idx >= 0 && idx < len(alts):
		chosen = idx
	case choice != "":
		cw := topicTokens(choice)
		best := 0.0
		for i, a := range alts {
			if sc := overlap(cw, topicTokens(a.Name)); sc > best {
				best, chosen = sc, i
			}
		}
		if best < 0.5 {
			chosen = -1
		}
	}
	if chosen < 0 && !inline && choice != "" && idx == -1 {
		// "je veux une fusion intelligente": a choice named in words that
		// no listed item holds may be one of two the agent put side by
		// side ("**remplacement strict** ou **fusion ...**").
		if pair, _ := inlineAlternatives(tl, u); len(pair) == 2 {
			if k := namedOfPair(choice, pair); k >= 0 {
				alts, chosen = pair, k
			}
		}
	}
	if chosen < 0 {
		return nil
	}
	question := ""
	if u.prev >= 0 {
		question = shorten(tl.utts[u.prev].text, 160)
	}
	reasons := []string{}
	if alts[chosen].Reasoning != "" {
		reasons = append(reasons, alts[chosen].Reasoning)
	}
	if m := becauseRE.FindStringSubmatch(u.text); m != nil {
		reasons = append(reasons, shorten(m[2], 160))
	}
	return &Observation{
		Type: TypeDecision, Title: shorten("Chose "+alts[chosen].Name, 80), Description: "Decision among " + itoa(len(alts)) + " alternatives",
		Question: question, Alternatives: alts, Chosen: alts[chosen].Name, Reasons: reasons,
		ActionTypes: e.tax.ClassifyText(alts[chosen].Name + " " + u.text),
		Confidence:  0.6, Importance: 0.45,
		Sources: []SourceRef{tl.sourceRef(u.assistant[0], u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
	}
}

// inlineAltRE is two alternatives put side by side in a sentence:
// "(single-role vs multi-role)", "REST vs. GraphQL", "Postgres versus
// SQLite".
var inlineAltRE = textutil.Lazy(`(?i)([\p{L}\p{N}_][\p{L}\p{N}_ /-]{0,40}?)\s+(?:vs\.?|versus)\s+([\p{L}\p{N}_][\p{L}\p{N}_ /-]{0,40})`)

// markedOrRE is two alternatives the agent marked (bold or code) and
// joined by "or" in the languages people write to agents in: "**strict
// replacement** or **a merge that keeps Speckit's additions**",
// "`rebase` oder `merge`", "**A** 还是 **B**".
var markedOrRE = textutil.Lazy(`(?i)(\*\*[^*\n]{2,80}\*\*|` + "`[^`\n]{2,80}`" + `)\s*,?\s*(?:` + orSpaced + `|` + orUnspaced + `|或|か)\s*(\*\*[^*\n]{2,80}\*\*|` + "`[^`\n]{2,80}`" + `)`)

// orSpaced and orUnspaced are the words that join two alternatives ("X or
// Y") in the languages people write to agents in: those written between
// spaces, and those written without (CJK, Korean's own).
const (
	orSpaced   = `or|ou|oder|o|u|ovvero|oppure|или|либо|або|albo|lub|czy|veya|ya da|yoksa|eller|vagy|nebo|atau|hay|hoặc|या|أو|או|ή`
	orUnspaced = `还是|或者|または|それとも|아니면|또는|หรือ`
)

// askedOrRE is a question the agent asks with two sides joined by "or",
// in the languages people write to agents in: "지금 바로 cron job을
// 설정할까요? 아니면 먼저 테스트를 해보고 설정할까요?", "Should I set it up
// now, or test it first?", "现在设置还是先测试？".
var askedOrRE = textutil.Lazy(`(?i)([^.?!？。\n]{2,120}?)\s*[?？,，]\s*(?:(?:` + orSpaced + `)\s+|(?:` + orUnspaced + `)\s*)([^.?!？。\n]{2,120}?)\s*[?？]|([^.?!？。\n\s]{2,60})(?:还是|それとも)([^.?!？。\n]{2,60})[?？]`)

// askOpenerRE is the words a side of a question opens with that ask, not
// name a way: "Do you agree with this assessment, or do you have plans
// that change it?" sets this assessment against those plans.
var askOpenerRE = textutil.Lazy(`(?i)^(?:(?:so|and|or)\s+)?(?:do you (?:want me to|agree with|prefer|have|need)|would you (?:like|prefer)(?: me)?(?: to)?|want me to|should i|shall i|can i|may i|do you|is it|are you)\s+`)

// inlineAlternatives are the last pair of alternatives the agent put side
// by side since the previous utterance: joined by "vs" (inlineAltRE),
// each cut to its last (left) or first (right) three words, marked and
// joined by "or" (markedOrRE), whole, or asked as the two sides of a
// question (askedOrRE), whole; asked: the pair is a question's sides.
func inlineAlternatives(tl *timeline, u *utterance) (alts []Alternative, asked bool) {
	for _, a := range u.assistant {
		txt := tl.rec(a).Text
		for _, m := range inlineAltRE.FindAllStringSubmatch(txt, 8) {
			l, r := strings.Fields(m[1]), strings.Fields(m[2])
			l, r = l[max(0, len(l)-3):], r[:min(len(r), 3)]
			alts, asked = []Alternative{{Name: strings.Join(l, " ")}, {Name: strings.Join(r, " ")}}, false
		}
		for _, m := range markedOrRE.FindAllStringSubmatch(txt, 8) {
			alts, asked = []Alternative{{Name: strings.Trim(m[1], "*` ")}, {Name: strings.Trim(m[2], "*` ")}}, false
		}
		side := func(s string) Alternative {
			return Alternative{Name: strings.TrimSpace(askOpenerRE.ReplaceAllString(strings.Trim(s, "*` "), ""))}
		}
		for _, m := range askedOrRE.FindAllStringSubmatch(strings.ReplaceAll(tailOf(txt, 600), "**", ""), 4) {
			alts, asked = []Alternative{side(m[1] + m[3]), side(m[2] + m[4])}, true
		}
	}
	return alts, asked
}

// inlineChoice returns the opening clause of u when it is short and names
// one of the alternatives the agent put side by side, clearly more than
// the other, else "".
func inlineChoice(tl *timeline, u *utterance) string {
	if isQuestion(firstSentence(u.text)) {
		return ""
	}
	opening := strings.TrimSpace(u.text)
	if i := strings.IndexAny(opening, ",.;:!?，。；：！？\n"); i >= 0 {
		opening = opening[:i]
	}
	if opening == "" || wordCount(opening) > 8 {
		return ""
	}
	alts, asked := inlineAlternatives(tl, u)
	if len(alts) != 2 {
		return ""
	}
	if low := lower(opening); asked && (lexicon.CueYes.AtStart(low) || lexicon.CueAck.AtStart(low)) {
		// "Want me to add a usage snippet too, or ...?" - "yes do the
		// quickstart": agreeing to the offer the question opens with
		// approves it; it does not choose between two ways.
		return ""
	}
	if namedOfPair(opening, alts) < 0 || negationCues.find(opening) != nil || lexicon.CueFailure.In(lower(opening)) {
		// "My vim suddenly broke": naming one side to report that it
		// fails chooses nothing.
		return ""
	}
	return opening
}

// namedOfPair is which of two alternatives text names, clearly more than
// the other (half its topic or more); -1 when neither or both.
func namedOfPair(text string, pair []Alternative) int {
	cw := topicTokens(text)
	a, b := overlap(cw, topicTokens(pair[0].Name)), overlap(cw, topicTokens(pair[1].Name))
	switch {
	case max(a, b) < 0.5 || a == b:
		return -1
	case b > a:
		return 1
	}
	return 0
}

// optionsAnyRE finds a list of options in the agent's text in another
// language than English.
var optionsAnyRE = textutil.Lazy(`(?i)(optionen|möglichkeiten|varianten|opciones|alternativas|варианты|вариант|方案|选项|选择|オプション|案|선택지|옵션|방법|opzioni|alternative|seçenek|yöntem|opcje|opcji|warianty|opties|mogelijkheden|phương án|lựa chọn|\d+ hướng|\d+ cách|opsi|pilihan)`)

// contrastRE is the person naming both sides of a choice: "use X instead
// of Y", "X rather than Y", "don't use X, use Y", "X statt Y",
// "X en lugar de Y", "用X而不是Y".
var (
	dontUseRE = textutil.Lazy("(?i)\\b(?:don'?t|do not|never|stop)\\s+(?:use|using)\\s+(`[^`]+`|\\S+)[,;:]?\\s+(?:just\\s+|but\\s+)?(?:use|with)\\s+(`[^`]+`|[^\\s.,;!?]+)")
	// dontDoRE is a way of doing the work turned down and the way chosen
	// in the next clause: "dont build the pipeline in a single file,
	// organize them in multiple files".
	dontDoRE   = textutil.Lazy(`(?i)^\W*(?:please\s+|so\s+)?(?:don'?t|do not|never)\s+((?:put|build|write|keep|make|create|store|add|use|do|run|call|hardcode|place)\b[^,;.]{3,80})[,;]\s*(?:but\s+|just\s+|instead\s+|rather\s+)?((?:put|build|write|keep|make|create|store|add|use|organi[sz]e|split|move|group|separate|call|run|pass|read|wrap|extract|return)\b[^.;!?]{3,100})`)
	contrastVB = textutil.Lazy(`(?i)\b(use|using|switch to|migrate to|go with|pick|choose|prefer|keep|launch(?:es)?|run|reuse|replace|verwende|nimm|benutze|usa|usar|utiliza|используй|используем)\b`)
)

// contrasted reads u as a decision the person states with both sides
// named (definition 3 of a decision: "X instead of Y").
func (e *decisionExtractor) contrasted(tl *timeline, u *utterance) *Observation {
	for _, sent := range clauses(u.text) {
		if isQuestion(sent) && !contrastVB.MatchString(sent) {
			continue
		}
		var chosen, other string
		if m := dontUseRE.FindStringSubmatch(sent); m != nil {
			other, chosen = strings.Trim(m[1], "`"), strings.Trim(m[2], "`")
		} else if m := dontDoRE.FindStringSubmatch(sent); m != nil && len(u.assistant)+len(u.calls) > 0 {
			other, chosen = firstPhrase(m[1]), firstPhrase(m[2])
		} else if loc := contrastCues.find(sent); loc != nil {
			cue := strings.ToLower(strings.TrimSpace(sent[loc[0]:loc[1]]))
			before, after := sent[:loc[0]], sent[loc[1]:]
			if cue == "over" && !contrastVB.MatchString(before) {
				continue // "over" is a choice only after a verb of choosing
			}
			if !contrastVB.MatchString(before) && strings.IndexFunc(sent, isCJK) < 0 {
				continue
			}
			chosen = lastPhrase(before)
			other = firstPhrase(after)
			if slices.Contains(lexicon.ContrastAfterCues, cue) {
				// "SQLiteではなく、Postgresを使って": the option turned down
				// comes first.
				chosen, other = firstPhrase(strings.TrimLeft(after, " 、,，")), lastPhrase(before)
			}
		}
		if wordCount(chosen) == 0 || wordCount(other) == 0 || wordCount(chosen) > 12 || wordCount(other) > 12 {
			continue
		}
		st := prefStatement(sent)
		from := u.idx
		if len(u.assistant) > 0 {
			from = u.assistant[len(u.assistant)-1]
		}
		return &Observation{
			Type: TypeDecision, Title: shorten(st, 80), Description: "Decision between 2 alternatives",
			Alternatives: []Alternative{{Name: chosen}, {Name: other}},
			Chosen:       chosen, Reasons: becauseOf(u.text),
			ActionTypes: e.tax.ClassifyText(sent), Confidence: 0.55, Importance: 0.45,
			Sources: []SourceRef{tl.sourceRef(from, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		}
	}
	return nil
}

func becauseOf(text string) []string {
	if m := becauseRE.FindStringSubmatch(text); m != nil {
		return []string{shorten(m[2], 160)}
	}
	return []string{}
}

// lastPhrase is the object of the verb of choosing before a contrast cue:
// "we should use the Spinner" -> "the Spinner".
func lastPhrase(before string) string {
	locs := contrastVB.RE().FindAllStringIndex(before, -1)
	s := before
	if len(locs) > 0 {
		s = before[locs[len(locs)-1][1]:]
	}
	s = strings.Trim(strings.TrimSpace(s), ",;:")
	if i := strings.LastIndexAny(s, ",;:"); i >= 0 && wordCount(s[i+1:]) > 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// firstPhrase is the alternative after a contrast cue, up to the clause end.
func firstPhrase(after string) string {
	s := strings.TrimSpace(after)
	if i := strings.IndexAny(s, ",;:.!?()，。"); i >= 0 {
		s = s[:i]
	}
	for _, stop := range []string{" and ", " but ", " because ", " since ", " which ", " so "} {
		if i := strings.Index(strings.ToLower(s), stop); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}

func optionIndex(s string) int {
	s = strings.ToLower(s)
	if len(s) == 1 && s[0] >= 'a' && s[0] <= 'h' {
		return int(s[0] - 'a')
	}
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n - 1
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

var (
	// proposalRE is the person proposing how the work is done instead of
	// the way the agent took or offered (definition 2 of a decision):
	// "could we reuse X", "maybe we should use X", "let's keep X but change
	// Y", "make X use Y", "könnten wir X verwenden", "podríamos usar X",
	// "不如用 X", "X を使ったら", "давай используем X", "X 사용하면 될 것 같다",
	// "on pourrait utiliser X", "usemos X", "podemos usar X", "usiamo X",
	// "체크박스로 선택하면 될 것 같다", "X로 바꾸자".
	proposalRE = textutil.Lazy(`(?i)(?:\b(?:could|can|should|shall)\s+(?:we|you|i)\s+(?:please\s+)?(?:just\s+|also\s+)?|\b(?:we|you)\s+(?:could|can|should|might)\s+(?:just\s+|also\s+)?|\b(?:maybe|perhaps|how about|what about|why not|let'?s)\s+(?:we\s+)?(?:should\s+)?(?:just\s+)?|\bmake\s+\S+\s+)(use|using|reuse|switch to|migrate to|move to|go with|keep|replace|set up|launch)\b\s+(.{2,100})|(?:könnten wir|sollten wir|lass uns|wir könnten|wir sollten)\s+(.{2,80}?)\s+(?:verwenden|benutzen|nehmen|nutzen)|(?:podemos|podríamos|deberíamos|hay\s+que|vamos\s+a|mejor|por\s+qué\s+no)\s+(?:usar|utilizar|reutilizar|cambiar\s+a|migrar\s+a|pasar\s+a|mantener|reemplazar|sustituir|quedarnos\s+con)\s+(.{2,80})|(?:usemos|mantengamos|reemplacemos|cambiemos\s+a|pasemos\s+a|quedémonos\s+con)\s+(.{2,80})|(?:on\s+(?:pourrait|peut|devrait|va)|nous\s+(?:pourrions|devrions)|il\s+(?:faudrait|faut)|pourquoi\s+ne\s+pas|et\s+si\s+on|mieux\s+vaut)\s+(?:plutôt\s+|juste\s+|simplement\s+)?(?:utiliser|réutiliser|passer\s+à|migrer\s+vers|garder|conserver|remplacer|partir\s+sur|mettre\s+en\s+place)\s+(.{2,80})|(?:utilisons|réutilisons|gardons|conservons|remplaçons|passons\s+à|partons\s+sur)\s+(.{2,80})|(?:poderíamos|deveríamos|devemos|melhor|por\s+que\s+não)\s+(?:usar|utilizar|reutilizar|mudar\s+para|migrar\s+para|passar\s+para|manter|substituir|trocar\s+por|ficar\s+com)\s+(.{2,80})|(?:possiamo|potremmo|dovremmo|meglio|perché\s+non)\s+(?:usare|utilizzare|riutilizzare|passare\s+a|migrare\s+a|tenere|mantenere|sostituire)\s+(.{2,80})|(?:usiamo|teniamo|passiamo\s+a|sostituiamo)\s+(.{2,80})|(?:不如|要不|可以改用|应该用|我们可以用|还是用)\s*(.{2,60})|(.{2,60}?)(?:を使ったら|を使うのはどう|にしたら|を使いましょう)|(?:давай(?:те)?|лучше|можно|может)\s+(?:использовать|используем|возьмём|возьмем)\s+(.{2,80})|(.{2,60}?)\s*(?:을|를)?\s*(?:사용하면|쓰면|이용하면)\s*(?:될\s*것\s*같|되잖아|되지\s*않|좋겠|어때)|(.{2,60}?)(?:로|으로)\s*(?:\S+\s*)?(?:하면|만들면|바꾸면|선택하면)\s*(?:될\s*것\s*같|되잖아|좋겠|어때)|(.{2,60}?)(?:로|으로)\s*(?:바꾸자|하자|가자|만들자)`)
	// comparativeRE is a proposal's reason that weighs it against another
	// way: "which is less work", "simpler", "einfacher", "más simple".
	comparativeRE = textutil.Lazy(`(?i)\b(less work|less code|simpler|easier|cleaner|faster|more robust|instead|einfacher|sauberer|más simple|más fácil|más limpio|проще|лучше)\b|更简单|更好|より簡単|더 간단`)
	// usingRE is the way a person says how to do it, weighed ("You can set
	// X using Y which is less work").
	usingRE = textutil.Lazy(`(?i)\b(?:you|we)\s+(?:can|could|should)\s+(.{2,80}?)\s+(?:using|with|via)\s+(.{2,80})`)
)

// proposed reads u as the person choosing a way of doing the work other
// than the one the agent took or proposed.
func (e *decisionExtractor) proposed(tl *timeline, u *utterance) *Observation {
	if len(u.calls) == 0 && len(u.assistant) == 0 {
		return nil // nothing to choose against
	}
	for _, sent := range clauses(u.text) {
		chosen := ""
		if m := proposalRE.FindStringSubmatch(sent); m != nil {
			for _, g := range m[2:] {
				if strings.TrimSpace(g) != "" {
					chosen = firstPhrase(g)
					break
				}
			}
			if chosen != "" && m[1] != "" {
				chosen = strings.TrimSpace(m[1] + " " + chosen)
			}
		} else if m := usingRE.FindStringSubmatch(sent); m != nil && comparativeRE.MatchString(sent) {
			chosen = firstPhrase(m[1] + " using " + m[2])
		} else if what := needless(sent); what != "" && agentNamed(tl, u, strings.TrimPrefix(what, "to ")) {
			if act, ok := strings.CutPrefix(what, "to "); ok {
				chosen = "not " + act // "no need to loop through all items": an act not to do
			} else {
				chosen = "do without " + what
			}
		}
		if chosen == "" || !namesThing(doneWithout(chosen)) || wordCount(chosen) > 16 {
			continue
		}
		other := ""
		if len(u.calls) > 0 {
			other = "the agent's way: " + callSummary(tl.rec(u.calls[len(u.calls)-1]))
		} else {
			other = "the agent's proposal: " + shorten(firstLineOf(tl.lastAgentText(u)), 100)
		}
		from := u.idx
		if len(u.assistant) > 0 {
			from = u.assistant[len(u.assistant)-1]
		}
		st := prefStatement(sent)
		if what := doneWithout(chosen); what != chosen {
			st = capitalize(strings.TrimSuffix(chosen, what)) + what // not the question it was asked as
			if strings.HasPrefix(chosen, "not ") {
				st = "Do not " + what
			}
		}
		return &Observation{
			Type: TypeDecision, Title: shorten(st, 80), Description: "Decision for another way than the agent's",
			Alternatives: []Alternative{{Name: chosen}, {Name: other}},
			Chosen:       chosen, Reasons: becauseOf(u.text),
			ActionTypes: e.tax.ClassifyText(sent), Confidence: 0.5, Importance: 0.4,
			Sources: []SourceRef{tl.sourceRef(from, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		}
	}
	return nil
}

// respecified reads u as the person choosing another way after taking the
// agent's change back (aider's /undo, Claude Code's /rewind): the
// instruction that follows the undo, when it names what to do (a concrete
// thing, in any language), is the way chosen over the undone one. The
// structure carries it, not the words.
func (e *decisionExtractor) respecified(tl *timeline, u *utterance) *Observation {
	if !u.undone || isQuestion(u.text) || len(u.assistant) == 0 {
		return nil
	}
	first := firstSentence(u.text)
	if !namedRE.MatchString(first) || wordCount(first) > 40 || isLogLine(first) {
		return nil
	}
	if englishRE.MatchString(first) && !directiveStartRE.MatchString(strings.TrimSpace(leadRE.ReplaceAllString(first, ""))) {
		// In English, only an instruction: "the leaderboard is wider than
		// ..." after an undo reports a problem, it chooses nothing.
		return nil
	}
	undone := shorten(cleanMarkup(firstLineOf(tl.lastAgentText(u))), 100)
	st := prefStatement(first)
	return &Observation{
		Type: TypeDecision, Title: shorten(st, 80), Description: "Decision for another way than the undone change",
		Alternatives: []Alternative{{Name: st}, {Name: "the undone change: " + undone}},
		Chosen:       st, Reasons: becauseOf(u.text),
		ActionTypes: e.tax.ClassifyText(u.text), Confidence: 0.5, Importance: 0.4,
		Sources: []SourceRef{tl.sourceRef(u.assistant[len(u.assistant)-1], u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
	}
}

// agentNamed reports whether phrase names something of what the agent did
// since the person last spoke: a content word of it in the agent's words or
// its last calls. "Do we even need X?" drops the agent's X; "do we need to
// update the changelog too?" asks for more work.
// agentWork is what the agent said and did since the person last spoke:
// its messages and its last three calls, each cut to its head.
func agentWork(tl *timeline, u *utterance) string {
	var b strings.Builder
	for _, a := range u.assistant {
		b.WriteString(headOf(tl.rec(a).Text, 4000) + "\n")
	}
	calls := u.calls
	if len(calls) > 3 {
		calls = calls[len(calls)-3:]
	}
	for _, c := range calls {
		b.WriteString(callWords(tl.rec(c)) + " " + headOf(string(tl.rec(c).Input), 4000) + "\n")
	}
	return b.String()
}

func agentNamed(tl *timeline, u *utterance, phrase string) bool {
	ws := contentStems(phrase)
	if len(ws) == 0 {
		return false
	}
	theirs := contentStems(agentWork(tl, u))
	for w := range ws {
		if len(w) >= 4 && theirs[w] {
			return true
		}
	}
	return false
}

// needless returns what a sentence says the work does not need ("Do we
// even need _generate_html_with_combined_link then?", "I don't think we
// need to loop through all items", "没必要用 Redis"): the phrase after a
// CueNeedless phrase, up to the clause's end; "" when there is none.
func needless(sent string) string {
	low := lower(sent)
	_, end := lexicon.CueNeedless.Span(low)
	if end < 0 || len(low) != len(sent) {
		return ""
	}
	what := firstPhrase(strings.TrimLeft(sent[end:], " :"))
	for _, tail := range []string{" then", " at all", " anymore", " here"} {
		what = strings.TrimSuffix(what, tail)
	}
	if wordCount(what) == 0 || wordCount(what) > 12 || what == "to" {
		return ""
	}
	return what // "to loop through all items" stays an act: needless() keeps the "to "
}

// doneWithout is what a decision to do without something leaves out: the
// thing ("do without X") or the act ("not X"); chosen itself otherwise.
func doneWithout(chosen string) string {
	for _, p := range []string{"do without ", "not "} {
		if w, ok := strings.CutPrefix(chosen, p); ok {
			return w
		}
	}
	return chosen
}

// namedRE is a concrete thing: a code span, a path, a file, a dotted or
// snake or Camel identifier, a flag, a URL scheme.
var namedRE = textutil.Lazy("`[^`]+`|@?[\\w.-]+/[\\w./-]+|\\b\\w+\\.(?:[a-z]{1,5})\\b|\\b[a-z]+_[a-z_]+\\b|\\b[A-Z][a-z]+[A-Z]\\w*\\b|--[a-z][\\w-]+|\\bhttps?\\b|\\b[A-Z]{2,}\\b")

// namesThing reports whether a proposal names what to use: a concrete
// thing (namedRE), a CJK phrase, or a noun phrase of two or more words.
func namesThing(s string) bool {
	if namedRE.MatchString(s) || strings.IndexFunc(s, isCJK) >= 0 {
		return true
	}
	return len(topicTokens(s)) >= 2
}

// Backward compatibility is a choice people state in prose, and the one
// the next session most needs to know: whether old callers, commands or
// formats must keep working. dropCompatRE is the person giving it up
// ("breaking backward compatibility", "without keeping backwards
// compatibility", "rompendo la retro-compatibilità", "sin mantener la
// retrocompatibilidad", "不需要向后兼容"); keepCompatRE the person
// requiring it ("must stay backward compatible", "keep backwards
// compatibility").
var (
	dropCompatRE = textutil.Lazy(`(?i)\b(?:break(?:ing|s)?|drop(?:ping)?|without (?:keeping|maintaining|preserving)|no need (?:for|to keep)|(?:don'?t|do not) (?:need|keep|care about|worry about))\s+(?:the\s+)?backwards?[- ]compat(?:ibility|ible)?\b|\bbackwards?[- ]compat(?:ibility)? (?:is not|isn'?t) (?:needed|required|a concern)|\b(?:rompendo|rompere|senza mantenere|senza garantire)\s+la\s+retro-?compatib|retro-?compatib\w*\s+che non deve essere (?:garantita|mantenuta)|\b(?:sin mantener|rompiendo|sin preocuparte por)\s+la\s+(?:retro)?compatibilidad|\b(?:sans (?:garder|conserver|maintenir)|en cassant)\s+la\s+(?:r[ée]tro)?compatibilit[ée]|\bohne\s+(?:R[üu]ckw[äa]rts|Abw[äa]rts)kompatibilit[äa]t|\bsem manter (?:a )?retrocompatibilidade|不需要(?:向后|向下)?兼容|不用(?:考虑)?(?:向后|向下)?兼容|後方互換性は(?:不要|いらない|気にしない)|호환성은? (?:필요 없|신경 쓰지)`)
	keepCompatRE = textutil.Lazy(`(?i)\b(?:keep|maintain|preserve|stay|remain|must be|has to be|needs to be)\s+(?:the\s+)?backwards?[- ]compat(?:ibility|ible)\b|\bmantenendo la retro-?compatib|\bmanteniendo la (?:retro)?compatibilidad|\ben gardant la (?:r[ée]tro)?compatibilit[ée]|\b(?:r[üu]ckw[äa]rts|abw[äa]rts)kompatibel bleiben|保持(?:向后|向下)兼容|後方互換性を(?:保って|維持)`)
)

// compatibility reads u as the person's decision about backward
// compatibility, stated in any of the lexicon's languages.
func (e *decisionExtractor) compatibility(tl *timeline, u *utterance) *Observation {
	drop, keep := "break backward compatibility", "keep backward compatibility"
	var chosen, other, sent string
	for _, s := range clauses(u.text) {
		if isQuestion(s) {
			continue // "does this break backwards compatibility?" asks
		}
		switch {
		case dropCompatRE.MatchString(s):
			chosen, other, sent = drop, keep, s
		case keepCompatRE.MatchString(s) && negationCues.find(s) == nil:
			chosen, other, sent = keep, drop, s
		}
		if chosen != "" {
			break
		}
	}
	if chosen == "" {
		return nil
	}
	from := u.idx
	if len(u.assistant) > 0 {
		from = u.assistant[len(u.assistant)-1]
	}
	return &Observation{
		Type: TypeDecision, Title: shorten(capitalize(chosen)+": "+cleanMarkup(sent), 80), Description: "Decision about backward compatibility",
		Alternatives: []Alternative{{Name: chosen}, {Name: other}}, Chosen: chosen, Reasons: becauseOf(u.text),
		ActionTypes: e.tax.ClassifyText(u.text), Confidence: 0.6, Importance: 0.5,
		Sources: []SourceRef{tl.sourceRef(from, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
	}
}

// allowedRE is the person settling that a way is acceptable, after the
// agent laid out what to do: "I think it's fine to throw away the sync
// response", "it's ok to skip the cache here", "es está bien si ...",
// "c'est ok de ...", "可以直接丢掉".
var allowedRE = textutil.Lazy(`(?i)\b(?:i think\s+)?it'?s\s+(?:fine|ok|okay|acceptable|good enough)\s+(?:to|if we|if you)\s+(.{4,120})|\b(?:est[áa] bien|no pasa nada)\s+(?:que|si)\s+(.{4,120})|\bc'est\s+(?:ok|bon|acceptable)\s+(?:de|si)\s+(.{4,120})|\bes ist (?:ok|in ordnung),?\s+(?:wenn|dass)\s+(.{4,120})`)

// allowed reads u as the person deciding that a way of doing the work is
// acceptable (allowedRE), when the agent has said something since they
// last spoke: a choice about how, not a request.
func (e *decisionExtractor) allowed(tl *timeline, u *utterance) *Observation {
	if len(u.assistant) == 0 {
		return nil
	}
	for _, s := range clauses(u.text) {
		if isQuestion(s) {
			continue
		}
		m := allowedRE.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		what := ""
		for _, g := range m[1:] {
			if g != "" {
				what = firstPhrase(g)
				break
			}
		}
		if wordCount(what) < 2 {
			continue
		}
		return &Observation{
			Type: TypeDecision, Title: shorten("Acceptable: "+what, 80), Description: "Decision that a way is acceptable",
			Alternatives: []Alternative{{Name: what}, {Name: "not " + what}}, Chosen: what, Reasons: becauseOf(u.text),
			ActionTypes: e.tax.ClassifyText(s), Confidence: 0.5, Importance: 0.4,
			Sources: []SourceRef{tl.sourceRef(u.assistant[len(u.assistant)-1], u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		}
	}
	return nil
}
