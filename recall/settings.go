package recall

import (
	"fmt"
	"strings"

	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/observations"
)

// ConfigFor is recall's configuration from kb.yaml: its recall section,
// the taxonomy with kb.yaml's action_types, the lexicon with its
// equivalents, and the semantic layer when embeddings are on.
// scopeProjects is set for a KB that holds the sessions of many projects
// (Config.ScopeProjects). kb and the hook entry point both configure
// recall here, so a hook recalls as `kb recall` does.
func ConfigFor(c config.Config, scopeProjects bool) (Config, error) {
	tax, err := observations.TaxonomyOf(c.ActionTypes)
	if err != nil {
		return Config{}, &config.Error{Msg: "action_types: " + err.Error()}
	}
	// Without equivalents of its own the KB uses the built-in lexicon,
	// which a cue parses on first use (nil here): a tool call, which has
	// no task words, never parses it.
	var lex *Lexicon
	if len(c.Recall.Equivalents) > 0 {
		if lex, err = DefaultLexicon().Extend(strings.Join(c.Recall.Equivalents, "\n")); err != nil {
			return Config{}, &config.Error{Msg: fmt.Sprintf("recall.equivalents: %v", err)}
		}
	}
	return Config{Budget: c.Recall.Budget, Budgets: c.Recall.Budgets, HighConsequence: c.Recall.HighConsequence,
		Taxonomy: tax, Lexicon: lex, Semantic: c.Embeddings.Enabled, ScopeProjects: scopeProjects}, nil
}

// CompiledEngine is recall over the activation index c of the KB at root,
// configured by kb.yaml (ConfigFor): what hooks answer with.
func CompiledEngine(c *Compiled, cfg config.Config, scopeProjects bool, root string) (*Engine, error) {
	rc, err := ConfigFor(cfg, scopeProjects)
	if err != nil {
		return nil, err
	}
	return &Engine{Config: rc, Index: c, Files: c.Files(root)}, nil
}
