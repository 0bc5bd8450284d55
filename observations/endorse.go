package observations

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
)

// Endorsements: the person taking to one thing of what the agent just put
// before them ("I like the names bootstrap, backfill and delta", "I'm
// leaning towards a sync type parameter", "ich tendiere zu Redis"). Said
// right after the agent offered ways or recommended one and asked, the
// sentence closes a choice: a decision, not a lasting taste. The same
// words with nothing offered ("I like small commits") stay a preference.

var endorseCues = newCueSet(lexicon.EndorseCues)

// recommendRE is the agent putting one way forward: "I recommend", "my
// pick", "I'd go with", "ich empfehle", "recomiendo", "je recommande",
// "рекомендую", "推荐", "おすすめ", "추천".
var recommendRE = textutil.Lazy(`(?i)\b(?:recommend(?:ed|ation)?|suggest(?:ion)?|my pick|i'?d go with|i would go with|empfehl\w*|recomiend\w*|recomend\w*|recommand\w*|рекоменд\w*|предлагаю|consiglio|suggerisco|öneririm|tavsiye|polecam|proponuję|stel voor|raad aan|khuyên|đề xuất|sarankan|rekomendasi)\b|推荐|建议|おすすめ|推奨|提案|추천|제안`)

// genericChoiceWords name a choice without saying which: a sentence whose
// only topic is "this approach" points at the agent's proposal and names
// nothing. Built on first use: stemming them at start would cost every
// hook process, which never reads them.
var genericChoiceWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range append(lexicon.OptionWords, "idea", "way", "proposal", "suggestion", "one", "version", "name", "names", "thing", "this", "that", "these", "those") {
		for st := range contentStems(w) {
			m[st] = true
		}
	}
	return m
})

// offersChoice reports whether the agent's text puts a choice before the
// person: it asks (askedRE, a closing full-width question mark, an offer
// to do something if they want, a question among its last lines) and
// offers ways or recommends one.
func offersChoice(txt string) bool {
	t := strings.TrimSpace(txt)
	if !askedRE.MatchString(t) && !strings.HasSuffix(t, "？") && !offerToDoRE.MatchString(t) && !asksInLines(t) {
		return false
	}
	return optionsWordRE.MatchString(txt) || optionsAnyRE.MatchString(txt) || recommendRE.MatchString(txt)
}

// offerToDoRE is the agent offering to do something if the person wants,
// in the languages people write to agents in ("want me to" and its kin
// are in askedRE): "si tu veux, je peux", "soll ich", "要不要我".
var offerToDoRE = textutil.Lazy(`(?i)\b(?:si (?:tu veux|vous voulez|vous le souhaitez)|(?:veux|voulez)-(?:tu|vous) que|souhaites-tu|si quieres|quieres que|wenn du (?:willst|möchtest)|soll ich|möchtest du|se (?:quiser|você quiser)|quer que eu|se vuoi|vuoi che|istersen|isterseniz|jeśli chcesz|als je wilt|nếu muốn|nếu bạn muốn|kalau mau|jika mau)\b|если (?:хочешь|хотите)|хочешь,? чтобы я|如果你愿意|要不要我|需要我|是否需要|よろしければ|しましょうか|원하시면|할까요|드릴까요`)

// asksInLines reports whether one of the last lines of t is a question:
// numbered questions under a closing offer ("2) Tu préfères un include
// ou un merge ?").
func asksInLines(t string) bool {
	lines := strings.Split(t, "\n")
	for _, l := range lines[max(0, len(lines)-15):] {
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, "?") || strings.HasSuffix(l, "？") {
			return true
		}
	}
	return false
}

// offeredText is the agent's text since the person last spoke that puts
// a choice before them (offersChoice), the latest of its last three: a
// closing "Waiting." after the offer does not hide it. A choice prompt the
// agent opened (AskUserQuestion, request_user_input) asks for it: then its
// questions and options are the offer, with the texts before it.
func offeredText(tl *timeline, u *utterance) string {
	for _, c := range slices.Backward(u.calls) {
		if r := tl.rec(c); askTools[r.Tool] && len(r.Input) > 0 {
			var b strings.Builder
			for _, a := range u.assistant[max(0, len(u.assistant)-3):] {
				b.WriteString(tl.rec(a).Text)
				b.WriteString("\n")
			}
			b.Write(r.Input)
			return b.String()
		}
	}
	for i := len(u.assistant) - 1; i >= 0 && i >= len(u.assistant)-3; i-- {
		if txt := tl.rec(u.assistant[i]).Text; offersChoice(txt) {
			return txt
		}
	}
	return ""
}

// endorsement returns what sentence sent of u takes to among what the
// agent offered since the person last spoke, and that offer
// (offeredText), or "" when it is no such endorsement: a like/lean cue, no
// negation, no question, and a topic word of the agent's offer that is not
// a bare "option" or "approach".
func endorsement(tl *timeline, u *utterance, sent string) (obj, offer string) {
	if len(u.assistant) == 0 || isQuestion(sent) {
		return "", ""
	}
	loc := endorseCues.find(sent)
	if loc == nil || negationCues.match(sent) {
		return "", ""
	}
	agent := offeredText(tl, u)
	if agent == "" {
		return "", ""
	}
	theirs := topicTokens(agent)
	named := false
	for tok := range topicTokens(sent) {
		if genericChoiceWords()[tok] || !theirs[tok] {
			continue
		}
		if utf8.RuneCountInString(tok) >= 3 || strings.IndexFunc(tok, isCJK) >= 0 {
			named = true
			break
		}
	}
	if !named {
		return "", ""
	}
	obj = strings.TrimSpace(sent[loc[1]:])
	if before := strings.TrimSpace(sent[:loc[0]]); wordCount(obj) == 0 || (strings.IndexFunc(sent[loc[0]:loc[1]], isCJK) >= 0 && wordCount(before) > 0) {
		obj = before // "Redisがいい", "이 방식이 좋겠": the object comes first
	}
	if i := strings.IndexAny(obj, ":;：；"); i > 0 && wordCount(obj[:i]) > 0 {
		// "j'aime bien l'idée d'avoir un annexe.md : c'est super propre :
		// ...": what is liked ends where the clause does.
		obj = obj[:i]
	}
	obj = strings.Trim(obj, " .,;:!。！")
	if wordCount(obj) == 0 || wordCount(obj) > 20 {
		return "", ""
	}
	return obj, agent
}

// endorsed reads u as the person choosing one of the ways the agent put
// before them by saying they like it (endorsement).
func (e *decisionExtractor) endorsed(tl *timeline, u *utterance) *Observation {
	for _, sent := range clauses(u.text) {
		obj, offer := endorsement(tl, u, sent)
		if obj == "" {
			continue
		}
		alts := []Alternative{{Name: obj}, {Name: "the agent's other proposals: " + shorten(firstLineOf(cleanMarkup(offer)), 100)}}
		from := u.assistant[len(u.assistant)-1]
		question := "" // what the person asked that led to the offer, as offered() records it
		if u.prev >= 0 {
			question = shorten(tl.utts[u.prev].text, 160)
		}
		return &Observation{
			Type: TypeDecision, Title: shorten("Chose "+obj, 80), Description: "Decision among the agent's proposals",
			Question: question, Alternatives: alts, Chosen: obj, Reasons: becauseOf(u.text),
			ActionTypes: e.tax.ClassifyText(sent), Confidence: 0.5, Importance: 0.4,
			Sources: []SourceRef{tl.sourceRef(from, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		}
	}
	return nil
}

// onlyChoiceWords reports whether every topic word of sent is a word
// that names a choice without saying which ("I don't like any
// approach", "I like this option"): a reaction to an offer, no taste
// anyone can name later.
func onlyChoiceWords(sent string) bool {
	n := 0
	for tok := range topicTokens(sent) {
		if ackWords[tok] {
			continue
		}
		if !genericChoiceWords()[tok] {
			return false
		}
		n++
	}
	return n > 0
}
