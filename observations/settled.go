package observations

import (
	"strings"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
)

// Questions the agent closes with that lay out the alternatives, and the
// person's answer that settles them.

// orWordRE joins two alternatives in a question, in the languages people
// write to agents in.
var orWordRE = textutil.Lazy(`(?i),?\s(?:` + orSpaced + `)\s|` + orUnspaced)

// shouldAskRE is a question whether the work should be one way, which
// yes or no settles: "Should a user be allowed to hold several roles?",
// "Sollte der Export ... ?", "是否应该…", "…べきですか". Asking leave to go
// on ("should I commit?", "shall we proceed?") is none.
var shouldAskRE = textutil.Lazy(`(?i)^\W*(?:and\s+|so\s+|also\s+|then\s+)?(?:should|must)\s+(?:(?:the|a|an|each|every|all|any|existing|current|new|this|that|these|those|it|they|we)\s+)?(?:\pL[\pL\pN_-]*\s+){0,3}(?:be|have|get|use|keep|stay|become|show|return|support|include|allow|run|store|fail|block|accept|work|go|live|need)\b|^\W*(?:sollte[n]?|soll(?:en)?)\s+(?:der|die|das|ein|eine|es|wir|man)\b|^\W*¿?(?:debería[n]?|deben)\s|^\W*(?:faut-il|devrait-on|devrait-il|devraient-ils)\b|(?:нужно|должен|должна|должны|стоит)\s+ли(?:[^\pL]|$)|是否(?:应该|需要|要)|应不应该|需不需要|べきでしょうか|べきですか|해야\s?(?:할까요|하나요|합니까)`)

// askLeaveRE is the agent asking leave to go on, not which way: "should
// I", "shall we proceed", "want me to".
var askLeaveRE = textutil.Lazy(`(?i)\b(?:should|shall|can|may)\s+i\b|\bshall\s+we\b|\bwant me to\b|\bwould you like (?:me|us) to\b|\bdo you want (?:me|us) to\b|\bshould we (?:proceed|continue|start|go ahead|move on)\b|\bsoll(?:en)? (?:ich|wir)\b|\bmöchtest du,? dass ich\b|\bquieres que\b|\bdebo\b|\b(?:voulez|veux)[- ](?:vous|tu) que je\b|\bsouhaite[sz]?[- ](?:vous|tu) que je\b|\bdois-je\b|хотите,? чтобы я|(?:^|[^\pL])мне\s+(?:сделать|начать|продолжить)|要我|需要我|我来|しましょうか|しますか|할까요|드릴까요`)

// askBackRE is the person asking the agent for something ("can you ...",
// "peux-tu ...", "你能..."): a request, not an answer.
var askBackRE = textutil.Lazy(`(?i)\b(?:can|could|would) you\b|\bpeux[- ]tu\b|\bpouvez[- ]vous\b|\bkannst du\b|\bkönnen sie\b|\bpuedes\b|\bpodrías\b|(?:^|[^\pL])(?:можешь|можете)(?:[^\pL]|$)|你能|能不能|可以帮|してくれ|してもらえ|해\s?줄\s?수|해\s?주실\s?수`)

// settled reads u as the person settling the question the agent closed
// its last message with, when that question lays the alternatives out:
// "should existing admins become Super Admin, Admin, or something else?"
// - "current admin becomes admin"; "should the backend block it too, or
// is it enough that the page refreshes?" - "enough that the page
// refreshes"; "Should a user be allowed to hold several roles at once?" -
// "yes, a user can have several". The alternatives are in the question,
// so the answer is a choice between them. The answer speaks of what was
// asked (a shared word, or yes or no to a should-question); a reply that
// corrects, asks back, or runs long is something else.
func (e *decisionExtractor) settled(tl *timeline, u *utterance) *Observation {
	if len(u.assistant) == 0 || u.command || len(u.rejected) > 0 || u.interrupted || u.undone {
		return nil
	}
	last := strings.TrimSpace(tl.lastAgentText(u))
	line := last[strings.LastIndexByte(last, '\n')+1:]
	q := strings.TrimSpace(lastSentenceOf(line))
	if !isQuestion(q) || listItemRE.MatchString(line) || strings.ContainsAny(line, "|→") || wordCount(q) > 70 {
		return nil // an item of a menu is offered's to read; a table row asks nothing
	}
	q = strings.TrimSpace(strings.TrimLeft(q, "*#> "))
	ans := strings.TrimSpace(u.text)
	if n := wordCount(ans); n < 2 || n > 40 || questionLike(ans) || askBackRE.MatchString(ans) || strings.Contains(ans, "\n\n") {
		return nil
	}
	if c, _ := tl.corrected(u, e.tax); c > 0 {
		return nil
	}
	low := lower(ans)
	if askLeaveRE.MatchString(tailOf(last, 400)) {
		return nil // leave to do the next piece of work, not a way to do it
	}
	var alts []Alternative
	if loc := orWordRE.FindStringIndex(q); loc != nil {
		left, right := lastPhrase(q[:loc[0]]), firstPhrase(strings.TrimRight(q[loc[1]:], "?？ "))
		if left == "" || right == "" || !sharesTopic(ans, q) {
			return nil
		}
		alts = []Alternative{{Name: shorten(left, 100)}, {Name: shorten(right, 100)}}
	} else {
		if !shouldAskRE.MatchString(q) {
			return nil
		}
		if !lexicon.CueYes.AtStart(low) && !lexicon.CueNo.AtStart(low) && !sharesTopic(ans, q) {
			return nil
		}
		alts = []Alternative{{Name: "yes"}, {Name: "no"}}
	}
	chosen := shorten(cleanMarkup(ans), 160)
	return &Observation{
		Type: TypeDecision, Title: shorten("Settled: "+chosen, 80), Description: "Answer to the agent's question",
		Question: shorten(cleanMarkup(q), 200), Alternatives: alts, Chosen: chosen, Reasons: becauseOf(ans),
		ActionTypes: e.tax.ClassifyText(ans + " " + q), Confidence: 0.5, Importance: 0.4,
		Sources: []SourceRef{tl.sourceRef(u.assistant[len(u.assistant)-1], u.idx)}, Excerpt: "User: " + shorten(ans, 300),
	}
}
