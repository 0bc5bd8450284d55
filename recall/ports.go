package recall

import (
	"time"

	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/llm/port"
	"github.com/kbmem/kb/observations"
)

// What recall needs from the rest of kb. Package kb implements these ports
// over internal/index and the layer packages (kb/recallports.go); a test
// may implement them in memory.

// The layers recall reads, as a Searcher names them in Hit.Layer.
const (
	LayerObservations = "observations"
	LayerEpisodes     = "episodes"
	LayerLibrary      = "library"
)

// Searcher finds the indexed documents a cue may apply to.
type Searcher interface {
	// Search returns at most s.Limit documents of s.Layers (and of
	// s.DocTypes, when given) that match s, best first.
	Search(s Search) ([]Hit, error)
}

// Search is one question recall asks the index. At most one of
// ActionTypes, Words, Anchors and Triggered is set; with none of them,
// every document of Layers and DocTypes matches.
type Search struct {
	// ActionTypes: the documents whose action_type, action_types or
	// triggers field holds one of these values, whole ("git:push-force").
	ActionTypes []string
	// Words: the documents ranked by lexical similarity to the words, any
	// of which may match; a word in double quotes ("\"timeline.html\"") is
	// one whole term.
	Words []string
	// Anchors: the documents a prohibited code signature of which has one
	// of these anchors (sigAnchors), rarest first. A Searcher without
	// them may rank the anchors as Words.
	Anchors []string
	// Triggered: the documents with a value in their triggers field.
	Triggered bool
	// Standing asks for the documents that may stand in a new session's
	// context (Engine.standing, without the project): a Searcher may
	// return only those, and need not; the engine filters them anyway.
	Standing bool
	// Project, with Standing, is the project of a new session whose
	// context is scoped to it: a Searcher may leave out the one-off
	// preferences of other projects, which never stand there.
	Project  string
	Layers   []string
	DocTypes []string
	Limit    int
	// Fields are the stored fields to return in Hit.Fields.
	Fields []string
	// Known, if set, names the paths the caller holds already: a Searcher
	// may return their hits with only Path and Score (in their place and
	// counted in Limit, as any other hit), and spare decoding them.
	Known func(path string) bool
}

// Hit is one document a Searcher found, with the stored fields asked for.
type Hit struct {
	Path, ID, Layer, Type, Title, Description string
	// Score is the index's relevance score; recall reads it for Words
	// searches.
	Score float64
	// Fields holds the stored field values: a string, a float64, or a list
	// of them.
	Fields map[string]any
	// cand is the candidate the activation index built when it was
	// compiled (Compiled.Search); nil from another Searcher.
	cand *candidate
}

// Reader reads one document by its path, as Hit.Path gives it.
type Reader interface {
	// Observation reads and parses an observation file.
	Observation(path string) (*observations.Observation, error)
	// Document reads and parses a frontmatter document (a library note,
	// an episode).
	Document(path string) (*doc.Document, error)
}

// Embedder turns texts into vectors, for the optional semantic layer.
// EmbeddingCache is one that embeds each text once.
type Embedder = port.Embedder

// Judge asks a language model a schema-constrained question, for the
// optional judge of high-consequence items.
type Judge = port.Client

// Clock tells the time recency is measured from.
type Clock interface{ Now() time.Time }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// Config is how recall is tuned for one KB.
type Config struct {
	// Budget is the token budget of a query that gives none; 0 means
	// DefaultBudget.
	Budget int
	// Budgets are the reserved shares of each kind, in tokens (Kind*).
	Budgets map[string]int
	// HighConsequence lists the action types that raise an item's priority
	// and are put to the judge.
	HighConsequence []string
	// Taxonomy classifies actions; nil means observations.Default().
	Taxonomy *observations.Taxonomy
	// Lexicon maps a prompt's phrasings of an action to the taxonomy's
	// words (intent.go); nil means DefaultLexicon().
	Lexicon *Lexicon
	// Semantic turns the embeddings layer on (it needs an Embedder).
	Semantic bool
	// ScopeProjects is set for a KB that holds the sessions of many
	// projects: a one-off lesson of another project than Query.Project is
	// then left out.
	ScopeProjects bool
}

// DefaultBudget is the token budget when neither the query nor the
// configuration sets one.
const DefaultBudget = 1200

// Engine is recall over one KB: its ports and its configuration.
type Engine struct {
	Config Config
	Index  Searcher
	Files  Reader
	// Embedder, when set and Config.Semantic, matches what no cue did by
	// meaning.
	Embedder Embedder
	// Judge, when set, confirms or drops the high-consequence items.
	Judge Judge
	Clock Clock                         // nil: the system clock
	Logf  func(format string, a ...any) // nil: quiet
}

func (e *Engine) logf(format string, a ...any) {
	if e.Logf != nil {
		e.Logf(format, a...)
	}
}

func (e *Engine) now() time.Time {
	if e.Clock == nil {
		return systemClock{}.Now()
	}
	return e.Clock.Now()
}
