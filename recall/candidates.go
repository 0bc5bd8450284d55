package recall

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kbmem/kb/internal/lexicon"

	"github.com/kbmem/kb/observations"
)

// candidate is one indexed document considered for recall.
type candidate struct {
	path, id, layer, typ string
	title, description   string
	status               string
	types                []string // action types, primary first
	phrases              []string // trigger phrases (library triggers that are not action types)
	text                 string   // the fields lexical matching looks at
	lesson               string   // text without the trigger (which quotes the corrected action)
	trigger              string
	files                []fileRef // files the candidate names
	projects             []string  // working directories of its sessions (observations)
	otherProject         bool      // from another project, kept as a general lesson
	importance           float64
	sessions             float64
	bm25                 float64
	prelim               float64 // rough rank, before the file is read
	excerpt, author      string  // the observation's excerpt and author, as the index stores them
	fromSession          bool    // extracted from an agent session (a source other than MCP's)
	standingOnly         bool    // comes back in a new session's context only (standingOnly)

	// matching
	typeScore  float64
	matchedAT  string // the proposed action's type that matched
	candAT     string // the candidate's type it matched
	phraseHit  string
	fileHit    string // a file both the cue and the candidate name
	cmdHit     string // the refused command, run again (sameCommand)
	place      uint8  // commandPlace, once worked out: 1 done, |2 named, |4 inside
	overlap    []string
	relevance  float64
	lexicalHit bool
	rejected   bool    // a type match that was ruled out: nothing rescues it
	pasted     bool    // the lesson is all pasted output (pasted.go): it never fires
	semantic   float64 // cosine similarity, when the embeddings layer matched

	// signatures (lesson.go)
	said   string      // the person's words, from the file's excerpt
	sigs   []signature // nil until lessonSignatures
	sigHit string      // a prohibited signature the proposal contains
	follow string      // an advised signature the proposal contains

	trigTypes []string // triggerTypes, once computed
	trigTyped bool
	own       []string // ownTypes, once computed
	ownTyped  bool
	// pre holds what the activation index computed when it was compiled
	// (compiled.go); nil for a hit of another Searcher.
	pre *precomputed
	// partial, when set, is the activation index whose record doc this
	// standing candidate was decoded from in part (Compiled.standingRecord):
	// load decodes the rest.
	partial *Compiled
	doc     int
}

// load completes a candidate decoded in part, before anything but
// Engine.relevant reads it; false when its record cannot be read.
func (c *candidate) load() bool {
	if c.partial == nil {
		return true
	}
	x := c.partial
	c.partial = nil
	return x.complete(c)
}

// StoredFields are the stored fields recall reads from hits (a Searcher
// returns at least these).
var StoredFields = []string{"noteid", "status", "action_type", "action_types", "triggers", "importance", "sessions", "projects",
	"trigger", "lesson", "consequence", "statement", "goal", "approach", "failure", "claim", "chosen", "description",
	"excerpt", "author", "sources", "signals"}

// secretWords are the one-word secret cues, in every language the
// lexicon has, as search words.
var secretWords = sync.OnceValue(func() []string {
	var out []string
	for _, p := range lexicon.CueSecret.Phrases() {
		if !strings.Contains(p, " ") {
			out = append(out, p)
		}
	}
	return out
})

// typedCandidates bounds the documents an action-type query loads. Loading a
// hit's stored fields is most of a hook's time (200 took 15-17 ms a hook
// over 10,000 observations, 100 about 12); recurrences merge into one
// observation, so a hundred distinct lessons on one action type is already
// more than a budget shows (maxReadPerKind).
const typedCandidates = 100

// cueCandidates retrieves the documents that may apply: those whose action
// types or triggers share a type with the cue, and the best lexical matches of
// the cue's words.
func (e *Engine) cueCandidates(c *cue) ([]*candidate, error) {
	byPath := map[string]*candidate{}
	var order []*candidate
	add := func(hits []Hit, bm25 bool) {
		for _, h := range hits {
			cd, ok := byPath[h.Path]
			if !ok {
				cd = candidateOf(h)
				byPath[h.Path] = cd
				order = append(order, cd)
			}
			if bm25 && h.Score > cd.bm25 {
				cd.bm25 = h.Score
			}
		}
	}
	known := func(path string) bool { _, ok := byPath[path]; return ok }
	layers := []string{LayerObservations, LayerLibrary, LayerEpisodes}
	if len(c.types) > 0 {
		var types []string
		seen := map[string]bool{}
		for _, t := range c.types {
			for _, v := range []string{t, domainVerb(t)} {
				if !seen[v] {
					seen[v] = true
					types = append(types, v)
				}
			}
		}
		hits, err := e.Index.Search(Search{ActionTypes: types, Layers: layers, Limit: typedCandidates, Fields: StoredFields})
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		add(hits, false)
	}
	if len(c.words) > 0 {
		hits, err := e.Index.Search(Search{Words: c.words, Layers: layers, Limit: 60, Fields: StoredFields, Known: known})
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		add(hits, true)
	}
	if c.written != "" && c.carriesSecret() {
		// A secret written into code is what a lesson about secrets is
		// about, whatever command it was corrected on and whatever
		// language it is in ("mai scritti come stringa in un file .ts").
		hits, err := e.Index.Search(Search{Words: secretWords(), Layers: layers, Limit: 20, Fields: StoredFields, Known: known})
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		add(hits, false)
	}
	if anchors := codeAnchors(c.written, c.command, c.cmdKeys); len(anchors) > 0 {
		// A lesson about code is found by its code, whatever language its
		// words are in ("别用强制解包。`as!` 一律不要" for a Swift edit).
		hits, err := e.Index.Search(Search{Anchors: anchors, Layers: layers, Limit: anchorCandidates, Fields: StoredFields, Known: known})
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		add(hits, false)
	}
	// Library notes with trigger phrases are few; they are cues too, even
	// when the lexical score ranks them low.
	hits, err := e.Index.Search(Search{Triggered: true, Layers: []string{LayerLibrary}, Limit: 200, Fields: StoredFields, Known: known})
	if err == nil {
		add(hits, false)
	}
	return order, nil
}

// standingSets are the sets of documents a new session starts with: the
// corrections and preferences, and the library's conventions and
// preferences.
var standingSets = []struct {
	layer string
	types []string
}{
	{LayerObservations, []string{observations.TypeCorrection, observations.TypePreference}},
	{LayerLibrary, []string{"convention", "preference"}},
}

// standingCandidates are the corrections, preferences and conventions a new
// session starts with, from a Searcher that is not a standingLister.
func (e *Engine) standingCandidates() ([]*candidate, error) {
	var out []*candidate
	for _, s := range standingSets {
		hits, err := e.Index.Search(Search{Layers: []string{s.layer}, DocTypes: s.types, Standing: true, Limit: 1000, Fields: StoredFields})
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		for _, h := range hits {
			out = append(out, candidateOf(h))
		}
	}
	return out, nil
}

// standingOnly reports whether a document of type typ with these signals
// is recalled in a new session's context only: a preference the person
// stated while correcting (observations.SignalCorrecting) comes back at its
// moment through that correction, which knows the action and its scope.
func standingOnly(typ string, signals []string) bool {
	return typ == observations.TypePreference && slices.Contains(signals, observations.SignalCorrecting)
}

// fromSession reports whether sources name a session's records (not only
// the MCP server's).
func fromSession(sources []string) bool {
	for _, src := range sources {
		if src != "" && src != "mcp" && !strings.HasPrefix(src, "mcp#") {
			return true
		}
	}
	return false
}

// candidateOf reads a candidate from a hit's stored fields.
func candidateOf(h Hit) *candidate {
	if h.cand != nil {
		return h.cand
	}
	list := func(k string) []string { return fieldStrings(h.Fields[k]) }
	str := func(k string) string { return fieldString(h.Fields[k]) }
	num := func(k string) float64 { return fieldNumber(h.Fields[k]) }
	c := &candidate{path: h.Path, id: str("noteid"), layer: h.Layer, typ: h.Type, title: h.Title,
		description: h.Description, status: str("status"), importance: num("importance"), sessions: num("sessions"),
		excerpt: str("excerpt"), author: str("author")}
	c.fromSession = fromSession(list("sources"))
	c.standingOnly = standingOnly(h.Type, list("signals"))
	if c.id == "" {
		c.id = h.ID
	}
	seen := map[string]bool{}
	for _, t := range append(list("action_type"), list("action_types")...) {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" && !seen[t] {
			seen[t] = true
			c.types = append(c.types, t)
		}
	}
	for _, t := range list("triggers") {
		lt := strings.ToLower(strings.TrimSpace(t))
		if observations.IsActionType(lt) {
			if !seen[lt] {
				seen[lt] = true
				c.types = append(c.types, lt)
			}
		} else if lt != "" {
			c.phrases = append(c.phrases, t)
		}
	}
	var parts []string
	for _, k := range []string{"trigger", "lesson", "consequence", "statement", "goal", "approach", "failure", "claim", "chosen"} {
		if s := str(k); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 || c.layer != LayerObservations {
		parts = append(parts, c.title, c.description)
	}
	c.text = strings.Join(parts, "\n")
	c.projects = list("projects")
	c.trigger = str("trigger")
	if c.trigger == "" && c.typ == observations.TypeNegativeResult {
		// A negative result's approach is its corrected moment, as kb
		// described the failed call ("editing tests: Edit `x_test.py`"):
		// a trigger, whose words say what kind of action it was, not
		// what the lesson is about.
		c.trigger = str("approach")
	}
	if t := c.trigger; t != "" {
		c.lesson = strings.TrimSpace(strings.Replace(c.text, t, "", 1))
	} else {
		c.lesson = c.text
	}
	// Pasted output is no cue (pasted.go).
	lesson, allPasted := cutPasted(c.lesson)
	if lesson != c.lesson {
		c.text = strings.Replace(c.text, c.lesson, lesson, 1)
		c.lesson, c.pasted = lesson, allPasted
	}
	if t, _ := cutPasted(c.trigger); t != c.trigger {
		c.text = strings.Replace(c.text, c.trigger, t, 1)
	}
	// Paths count as their file names (see paths.go). A script the
	// lesson runs ("run python hoge.py") is not a file it is about
	// changing, as a script a call runs is not (buildCueLex).
	raw := c.text
	c.text, c.files = reducePaths(c.text)
	c.files = withoutRunScripts(c.files, raw)
	c.files = withoutPermittedFiles(c.files, c.lesson, c.trigger)
	c.lesson, _ = reducePaths(c.lesson)
	return c
}

// domainVerb is the domain:verb of an action type ("git:push" of
// "git:push:force").
func domainVerb(t string) string {
	i := strings.IndexByte(t, ':')
	if i < 0 {
		return t
	}
	if j := strings.IndexByte(t[i+1:], ':'); j >= 0 {
		return t[:i+1+j]
	}
	return t
}

// withoutPermittedFiles drops the files the lesson names only in a clause
// that lets the agent change them ("yang boleh diedit cuma
// values/strings.xml", "values/strings.xml you can edit", "config/*.yml is
// fine"): the file the lesson allows is no file it warns about. A file the
// trigger or another clause names stays.
func withoutPermittedFiles(files []fileRef, lesson, trigger string) []fileRef {
	if len(files) == 0 {
		return files
	}
	permitted, other := map[fileRef]bool{}, map[fileRef]bool{}
	_, named := reducePaths(trigger)
	for _, f := range named {
		other[f] = true
	}
	for _, cl := range splitClauses(lesson) {
		_, fs := reducePaths(cl)
		low := strings.ToLower(cl)
		permits := (lexicon.CuePermit.In(low) || lexicon.CueAllowed.In(low)) && !negates(cl)
		for _, f := range fs {
			if permits {
				permitted[f] = true
			} else {
				other[f] = true
			}
		}
	}
	if len(permitted) == 0 {
		return files
	}
	out := make([]fileRef, 0, len(files))
	for _, f := range files {
		if !permitted[f] || other[f] {
			out = append(out, f)
		}
	}
	return out
}
