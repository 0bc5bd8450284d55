package observations

import (
	"strings"

	"github.com/kbmem/kb/internal/textutil"
)

// Answers to the agent's numbered questions.
//
// Before it plans, an agent often asks several questions at once, each
// with lettered options ("### Q1: How strict should the search be? - A.
// exactly as typed - B. split on | ..."; spec-kit's clarify step does this
// by design). The person answers them in one message, by number and
// letter, in whatever words: "Q1: B, Q2: C and D", "1. A 2. B", "Q1：关键字
// 检索严格性。 答案：B". Each lettered answer is a decision: the question,
// the options, the one (or ones) taken.

// questionHeadRE is a question's head line: its number (Q1, 1., 问题1,
// 質問1, 질문 1) and its title.
var questionHeadRE = textutil.Lazy(`^\s*(?:#{1,6}\s*)?(?:\*\*)?\s*(?:Q|Question|Frage|Pregunta|Pergunta|Domanda|Вопрос|问题|問題|質問|질문)?\s*(\d{1,2})\s*[:：.)、]\s*(?:\*\*)?\s*(.{2,160}?)\s*(?:\*\*)?\s*$`)

// letteredOptionRE is an option line under a question: "- A. text",
// "A) text", "**B.** text", "(C) text".
var letteredOptionRE = textutil.Lazy(`^\s*(?:[-*•]\s*)?(?:\*\*)?\(?([A-Fa-f])[.)）:：]\)?\s*(?:\*\*)?\s*(.{1,200}?)\s*$`)

// askedQuestion is one question the agent asked, with its options by
// letter.
type askedQuestion struct {
	num     string
	title   string
	letters []byte // upper case, in order
	options []string
}

// askedQuestions parses the numbered questions with lettered options of
// an agent's text; nil unless there are at least two options under each.
func askedQuestions(txt string) []askedQuestion {
	var qs []askedQuestion
	var cur *askedQuestion
	for _, ln := range strings.Split(txt, "\n") {
		if m := letteredOptionRE.FindStringSubmatch(ln); m != nil && cur != nil {
			cur.letters = append(cur.letters, strings.ToUpper(m[1])[0])
			cur.options = append(cur.options, strings.Trim(m[2], "*_` "))
			continue
		}
		if m := questionHeadRE.FindStringSubmatch(ln); m != nil {
			qs = append(qs, askedQuestion{num: m[1], title: strings.Trim(m[2], "*_` ")})
			cur = &qs[len(qs)-1]
		}
	}
	var out []askedQuestion
	for _, q := range qs {
		if len(q.options) >= 2 && len(q.options) <= 8 {
			out = append(out, q)
		}
	}
	return out
}

// answerMarkRE is where the answer to one question starts in the reply:
// its number, alone or after Q, at a line's start or after a space.
var answerMarkRE = textutil.Lazy(`(?:^|[\s,;，；。])(?:Q|Question|问题|問題|質問|질문)?\s*(\d{1,2})\s*[:：.)、\-]`)

// pickedLetters are the option letters a reply's segment takes: capitals
// standing alone ("B", "C和D", "A and D", "B, C"), not the article of a
// sentence ("A good idea").
func pickedLetters(seg string, allowed []byte) []byte {
	var out []byte
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c < 'A' || c > 'F' || strings.IndexByte(string(allowed), c) < 0 {
			continue
		}
		if i > 0 && (textutil.IdentByte(seg[i-1]) || seg[i-1] == '.' || seg[i-1] == '-') {
			continue
		}
		rest := seg[i+1:]
		if rest != "" && (textutil.IdentByte(rest[0]) || rest[0] == '.' && len(rest) > 1 && textutil.IdentByte(rest[1])) {
			continue
		}
		if r := strings.TrimLeft(rest, " "); len(r) < len(rest) && r != "" && r[0] >= 'a' && r[0] <= 'z' && !strings.HasPrefix(r, "and ") && !strings.HasPrefix(r, "or ") {
			continue // "A good idea"
		}
		if strings.IndexByte(string(out), c) < 0 {
			out = append(out, c)
		}
	}
	return out
}

// answered reads u as the person's answers to the numbered questions the
// agent just asked: a decision for each question answered by letter.
func (e *decisionExtractor) answered(tl *timeline, u *utterance) []*Observation {
	if len(u.assistant) == 0 {
		return nil
	}
	qs := askedQuestions(foldWidth(tl.rec(u.assistant[len(u.assistant)-1]).Text))
	if len(qs) == 0 {
		return nil
	}
	byNum := map[string]*askedQuestion{}
	for i := range qs {
		byNum[qs[i].num] = &qs[i]
	}
	// Answers by number and letter are mostly not letters: the timeline
	// may hold them as pasted ("1. B 2. C 3. A").
	reply := foldWidth(strings.TrimSpace(u.text + "\n" + u.pasted))
	marks := answerMarkRE.FindAllStringSubmatchIndex(reply, -1)
	var out []*Observation
	for k, m := range marks {
		q := byNum[reply[m[2]:m[3]]]
		if q == nil {
			continue
		}
		end := len(reply)
		if k+1 < len(marks) {
			end = marks[k+1][0]
		}
		seg := reply[m[1]:end]
		// The question's title said again is no answer ("Q1：关键字检索严格性。
		// 答案：B"): read after it.
		if i := strings.Index(seg, q.title); i >= 0 {
			seg = seg[i+len(q.title):]
		}
		picked := pickedLetters(seg, q.letters)
		if len(picked) == 0 {
			continue
		}
		var alts []Alternative
		var chosen []string
		for i, l := range q.letters {
			alts = append(alts, Alternative{Name: shorten(q.options[i], 120)})
			if strings.IndexByte(string(picked), l) >= 0 {
				chosen = append(chosen, shorten(q.options[i], 120))
			}
		}
		name := strings.Join(chosen, " + ")
		out = append(out, &Observation{
			Type: TypeDecision, Title: shorten("Chose "+name, 80), Description: "Answer to the agent's question " + q.num,
			Question: shorten(q.title, 160), Alternatives: alts, Chosen: name, Reasons: []string{},
			ActionTypes: e.tax.ClassifyText(name + " " + q.title),
			Confidence:  0.6, Importance: 0.45,
			Sources: []SourceRef{tl.sourceRef(u.assistant[0], u.idx)}, Excerpt: "User: " + shorten(strings.TrimSpace(seg), 300),
		})
	}
	return out
}
