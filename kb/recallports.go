package kb

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/internal/llm"
	"github.com/kbmem/kb/recall"
)

// The ports package recall declares, over this KB: its index, its files,
// its embeddings endpoint and its LLM, with kb.yaml's recall settings.

// embeddingsDir holds the embeddings layer's vector cache, under IndexDir.
const embeddingsDir = "embeddings"

// recallEngine is recall over the open index, configured by kb.yaml.
func (x *Searcher) recallEngine(q RecallQuery) (*recall.Engine, error) {
	k := x.k
	c := k.Config
	rc, err := recall.ConfigFor(c, k.ProjectRoot == k.Root)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			ce.Path = filepath.Join(k.Root, ConfigFile)
		}
		return nil, err // validated when kb.yaml was read
	}
	e := &recall.Engine{
		Config: rc,
		Index:  recallIndex{x.ix},
		Files:  recall.Files{Root: k.Root},
		Logf:   k.logf,
	}
	k.extendEngine(e, q.Standing)
	return e, nil
}

// extendEngine adds the embeddings layer (when kb.yaml turns it on) and
// the judge (when on, and not for a standing query) to e.
func (k *KB) extendEngine(e *recall.Engine, standing bool) {
	c := k.Config
	if c.Embeddings.Enabled {
		e.Embedder = &recall.EmbeddingCache{Embedder: recallEmbedder(c.Embeddings), Model: c.Embeddings.Model,
			Dir: filepath.Join(k.Root, IndexDir, embeddingsDir), Tree: k.files()}
	}
	if !standing {
		if cl := k.judgeClient(); cl != nil {
			e.Judge = cl
		}
	}
	e.Logf = k.logf
}

// judgeClient returns the judge's LLM client, or nil when the judge is off.
func (k *KB) judgeClient() llm.Client {
	if !k.Config.Recall.Judge {
		return nil
	}
	c := k.Config.LLM
	if p := strings.ToLower(strings.TrimSpace(c.Provider)); p == "" || p == "none" {
		return nil
	}
	cl, err := llm.New(k.llmConfig())
	if err != nil {
		k.logf("recall.judge: %v (judge skipped)", err)
		return nil
	}
	return cl
}

// recallIndex is recall's Searcher over the bleve index.
type recallIndex struct{ ix *index.Index }

func (r recallIndex) Search(s recall.Search) ([]recall.Hit, error) {
	var text string
	switch {
	case len(s.ActionTypes) > 0:
		var terms []string
		for _, v := range s.ActionTypes {
			for _, f := range []string{"action_types", "action_type", "triggers"} {
				terms = append(terms, f+`:"`+v+`"`)
			}
		}
		text = strings.Join(terms, " ")
	case len(s.Words) > 0:
		text = strings.Join(s.Words, " ")
	case len(s.Anchors) > 0:
		// bleve holds no anchors: the words of the code rank the lessons
		// that name them.
		var words []string
		for _, a := range s.Anchors {
			if !strings.HasPrefix(a, "cmd:") { // a command key is no word
				words = append(words, a)
			}
		}
		if len(words) == 0 {
			return nil, nil
		}
		text = strings.Join(words, " ")
	case s.Triggered:
		text = "triggers:*"
	}
	res, err := r.ix.Search(index.Query{Text: text, Layers: s.Layers, Types: s.DocTypes, Limit: s.Limit, Fields: s.Fields})
	if err != nil {
		return nil, err
	}
	hits := make([]recall.Hit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = recall.Hit{Path: h.Path, ID: h.ID, Layer: h.Layer, Type: h.Type, Title: h.Title, Description: h.Description,
			Score: h.Score, Fields: h.Fields}
	}
	return hits, nil
}

// recallEmbedder embeds through the endpoint kb.yaml's embeddings names;
// the client is made when there is something to embed (EmbeddingCache
// asks only for texts it does not hold).
type recallEmbedder EmbeddingsConfig

func (c recallEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	emb, err := llm.NewEmbedder(llm.EmbedConfig{BaseURL: c.BaseURL, Model: c.Model, APIKeyEnv: c.APIKeyEnv, Timeout: recall.EmbedTimeout})
	if err != nil {
		return nil, err
	}
	return emb.Embed(ctx, texts)
}
