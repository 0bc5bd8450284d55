package observations

import (
	"github.com/kbmem/kb/internal/textutil"
	"strings"
)

// ---------------------------------------------------------------------------
// Discoveries.

type discoveryExtractor struct{ tax *Taxonomy }

func (*discoveryExtractor) Type() string { return TypeDiscovery }

var (
	agentDiscoveryRE  = textutil.Lazy(`(?i)\b(it turns out|turns out|TIL|found the (root )?cause|the root cause (is|was)|the (real )?(issue|problem) (is|was) that)\b`)
	discoveryMarkerRE = textutil.Lazy(`(?i)\b(write this down|note (that|to self)|TIL|today i learned|turns out|it turns out|(that'?s|this is|very|really|how) interesting|good to know|remember (that|this)|keep in mind|worth remembering|important:|this is important|good to keep|make a note)\b|^interesting\b`)
	backRefRE         = textutil.Lazy(`(?i)\b(this|that|the above|these|it)\b`)
)

const maxAgentDiscoveries = 2

// markerPhraseRE matches what a discovery sentence says about itself rather
// than about the project: markers, back-references and fillers.
var markerPhraseRE = textutil.Lazy(`(?i)\b(write (this|that|it) down|note (that|to self)|TIL|today i learned|it turns out|turns out|(that'?s|this is|very|really|how) interesting|interesting|good to know|remember (that|this)|keep in mind|worth remembering|important|this is important|good to keep|make a note( of (this|that|it))?|please|so|ok(ay)?|wow|oh|nice|great|cool|good catch|thanks|thank you|perfect|awesome|exactly|yes|yeah|yep|right|really|very|this|that|these|the above|it|is|was|a|an|and|of|to)\b`)

// ownFact reports whether a sentence the person marked holds a fact of its
// own once its markers, back-references and fillers are taken out: at
// least two content words.
func ownFact(sent string) bool {
	return len(contentStems(markerPhraseRE.ReplaceAllString(sent, " "))) >= 2
}

func (e *discoveryExtractor) Extract(s *Session) []*Observation {
	tl := buildTimeline(s)
	var out []*Observation
	for k := range tl.utts {
		u := &tl.utts[k]
		if c, _ := tl.corrected(u, e.tax); c > 0 {
			continue
		}
		sent := matchSentence(u.text, discoveryMarkerRE)
		if sent == "" || requestRE.MatchString(sent) {
			continue
		}
		marker := discoveryMarkerRE.FindString(sent)
		o := &Observation{
			Type: TypeDiscovery, Title: shorten(sent, 80), Description: "Marked by the user as worth keeping",
			Claim: sent, Marker: strings.ToLower(marker), Signals: []string{SignalMarker},
			ActionTypes: e.tax.ClassifyText(sent), Confidence: 0.35, Importance: 0.35,
			Sources: []SourceRef{tl.sourceRef(u.idx, u.idx)}, Excerpt: "User: " + shorten(u.text, 300),
		}
		if !ownFact(sent) {
			// "Interesting, write that down": the fact is the agent's last
			// statement, marked by the person. It stays the agent's words,
			// for the person to review; their own sentence, when it holds a
			// fact ("TIL the CI cache lives in /var/cache/ci, write this
			// down"), is always what is kept.
			if len(u.assistant) == 0 {
				continue
			}
			a := u.assistant[len(u.assistant)-1]
			claim := shorten(statementOf(tl.rec(a).Text), 200)
			o.Title, o.Claim, o.ActionTypes = shorten(claim, 80), claim, e.tax.ClassifyText(claim)
			o.Description = "The agent's statement, marked by the user as worth keeping"
			o.Author, o.Origin = AuthorAgent, OriginAssistantText
			o.Sources = []SourceRef{tl.sourceRef(a, u.idx)}
			o.Excerpt = "Agent: " + shorten(claim, 300) + "\nUser: " + shorten(u.text, 300)
		}
		out = append(out, o)
	}
	n := 0
	for i := range s.Records {
		r := &s.Records[i]
		if n >= maxAgentDiscoveries || !isAgentText(r) {
			continue
		}
		sent := matchSentence(r.Text, agentDiscoveryRE)
		if sent == "" {
			continue
		}
		n++
		out = append(out, &Observation{
			Type: TypeDiscovery, Title: shorten(sent, 80), Description: "Surfaced during work",
			Claim: shorten(sent, 240), Marker: strings.ToLower(agentDiscoveryRE.FindString(sent)),
			ActionTypes: e.tax.ClassifyText(sent), Confidence: 0.2, Importance: 0.2,
			Author: AuthorAgent, Origin: OriginAssistantText,
			Sources: []SourceRef{tl.sourceRef(i, i)}, Excerpt: "Agent: " + shorten(sent, 300),
		})
	}
	return out
}
