package lexicon

import (
	"strings"
	"sync"
)

// Set is a set of lower-case words, built on first use: a process that
// never looks a word up (a hook, most commands) does not pay for the
// maps of the lists it links.
type Set struct {
	once  sync.Once
	lists []string
	stem  func(string) string
	base  *Set
	m     map[string]bool
}

// NewSet holds the whitespace-separated words of each list.
func NewSet(lists ...string) *Set { return &Set{lists: lists} }

// words is the set's map, built once.
func (s *Set) words() map[string]bool {
	s.once.Do(func() {
		if s.base != nil {
			b := s.base.words()
			s.m = make(map[string]bool, 2*len(b))
			for w := range b {
				s.m[w] = true
				s.m[s.stem(w)] = true
			}
			return
		}
		var words [][]string
		n := 0
		for _, l := range s.lists {
			f := strings.Fields(l)
			words = append(words, f)
			n += len(f)
		}
		s.m = make(map[string]bool, n) // sized once
		for _, f := range words {
			for _, w := range f {
				s.m[w] = true
			}
		}
	})
	return s.m
}

// Has reports whether w is in the set.
func (s *Set) Has(w string) bool { return s.words()[w] }

// Words is the set as a map, which the caller must not change.
func (s *Set) Words() map[string]bool { return s.words() }

// WithStems returns the set with the stem of each of its words added, for
// callers that look a word up after stemming it.
func (s *Set) WithStems(stem func(string) string) *Set { return &Set{base: s, stem: stem} }

// core are the English function words every caller drops: articles,
// pronouns, prepositions, conjunctions and the commonest auxiliaries.
const core = `a about after again all also an and any are as at be been before being but by can could did do down
	each else for from he here how i if in into is it its just let lets me more most must my of on only or other our
	out over own s same shall she should so some such t than that the then there these they this those to too up
	very was we were what when where which who whom why will with would you your`

// FunctionWords are core alone, the English function words: how much of
// a text they make tells English prose from another language written in
// Latin letters (the language an agent answered in).
var FunctionWords = NewSet(core)

// coreOther are the articles, pronouns, prepositions, conjunctions and
// commonest auxiliaries and modal verbs of French, Spanish, Portuguese,
// Italian and German, which people write to agents in as often as
// English: "je veux une fusion intelligente" is about a merge.
const coreOther = `le la les un une des du de au aux et ou en dans sur pour par avec sans ce cette ces je tu il elle nous
	vous ils elles on me te se mon ma mes ton ta tes son sa ses est sont être avoir ai as a avons avez ont veux veut voudrais
	faut qui que quoi
	el los las unos unas del al y o en con sin por para este esta estos estas yo tú él ella nosotros ellos mi mis tu tus su
	sus es son ser estar está hay quiero quieres hace
	os um uma uns umas do da dos das no na nos nas em com sem pelo pela eu ele ela nós eles meu minha seu sua são é
	estar quero
	il lo gli uno di del della dei delle nel nella con senza per io lui lei noi voi loro mio mia suo sua sono è essere
	voglio vorrei
	der die das den dem des ein eine einen einem einer und oder mit ohne für von zu im auf ich du er sie es wir ihr mein
	meine dein ist sind sein haben habe hat will möchte`

var (
	// StopExtract are the stop words of the observation extractors'
	// similarity (observations.Similar, content stems): core, the rest of
	// the auxiliaries and the politeness of chat ("please", "thanks",
	// "ok"). Negations are stop words here: similarity compares topics,
	// and a negated lesson is about the same topic.
	StopExtract = NewSet(core, `above am below between doe don during further had has have let's may might no not
		now ok okay once onto please thank thanks through us yeah yes`, coreOther).WithStems(Stem)

	// StopFacts are the stop words of `kb learn`'s fact comparison: like
	// StopExtract, but negations are not stop words (learn reads them to
	// tell "use X" from "do not use X") and the hedges of a rule
	// ("always", "instead", "rather") are.
	StopFacts = NewSet(core, `above always am below between does done during further had has have instead may
		might now ok okay once onto please rather thank thanks through us yeah yes`)

	// StopQuery are the stop words of a natural-language question turned
	// into a search query (eval's PlainQuery): a long English list with
	// contractions as they tokenize without their apostrophe ("dont",
	// "youre"). Month names and numbers are kept: "may" is not here on
	// purpose.
	StopQuery = NewSet(core, `above against am aren arent because below between both cannot cant couldn couldnt d
		didn didnt does doesn doesnt doing don dont during ever few further had hadn hadnt has hasn hasnt have haven
		havent having her hers herself hes him himself his im isn isnt itself ive ll m much mustn myself no nor not o
		off once ought ours ourselves re shan shes shouldn shouldnt thats their theirs them themselves theyre theyve
		through under until upon ve wasn wasnt weren werent weve whatever whats whenever wheres whether while whos
		whose won wont wouldn wouldnt y youll youre yours yourself yourselves youve`)

	// StopCue are the stop words of recall's cue words: core, the verbs
	// and nouns every tool call says ("use", "run", "file", "code"), the
	// fragments of URLs and paths, and the function words of French,
	// Spanish, Portuguese, Italian and German (coreOther): two French
	// lessons share "de", "la" and "est" whatever they are about.
	StopCue = NewSet(core, `add added adds always aren both code com d didn does doesn doing don done etc few file
		files get go go's got home http https instead isn like ll m made make may md might need needs net never new no
		nor not off ok okay onto org please ran re run thanks their them thing things tmp under us use used using usr
		ve want wants wasn way won www`, coreOther)
)
