package recall

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/llm/port"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// The optional embeddings layer (Config.Semantic, embeddings.enabled in
// kb.yaml): candidates no cue matched are compared with the cue by cosine
// similarity of their embeddings. EmbeddingCache keeps the vectors, one
// file per text, so each text is embedded once per model.

const (
	// semanticThreshold is the cosine similarity that counts as a match.
	semanticThreshold = 0.75
	// maxSemanticPool bounds the extra candidates the layer considers
	// besides those the cue retrieved.
	maxSemanticPool = 300
	maxEmbedText    = 2000
	// EmbedTimeout bounds the embedding of one recall, so that a slow
	// endpoint cannot stall a hook.
	EmbedTimeout = 3 * time.Second
)

// semanticOn reports whether the embeddings layer takes part in q: not for
// the standing context, a call that changes nothing, or a question.
func (e *Engine) semanticOn(q Query, cu *cue) bool {
	return e.Config.Semantic && e.Embedder != nil && !q.Standing && !cu.readOnly && !cu.question && cu.text != ""
}

// semanticPool adds the observations and library notes of the kinds recall
// surfaces, up to maxSemanticPool, to the cue's candidates.
func (e *Engine) semanticPool(cands []*candidate) []*candidate {
	seen := map[string]bool{}
	for _, c := range cands {
		seen[c.path] = true
	}
	hits, err := e.Index.Search(Search{Layers: []string{LayerObservations, LayerLibrary},
		DocTypes: []string{observations.TypeCorrection, observations.TypePreference, observations.TypeProcedure, observations.TypeNegativeResult,
			"convention", "procedure", "preference", "pattern"}, Limit: maxSemanticPool, Fields: StoredFields})
	if err != nil {
		return cands
	}
	for _, h := range hits {
		if !seen[h.Path] {
			seen[h.Path] = true
			cands = append(cands, candidateOf(h))
		}
	}
	return cands
}

// matchSemantic sets the relevance of the candidates whose text embeds
// close to the cue.
func (e *Engine) matchSemantic(ctx context.Context, cu *cue, cands []*candidate) error {
	ctx, cancel := context.WithTimeout(ctx, EmbedTimeout)
	defer cancel()
	texts := []string{cu.text}
	for _, c := range cands {
		texts = append(texts, textutil.Truncate(c.text, maxEmbedText))
	}
	vecs, err := e.Embedder.Embed(ctx, texts)
	if err != nil {
		return err
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, c := range cands {
		sim := port.Cosine(vecs[0], vecs[i+1])
		if sim >= semanticThreshold {
			c.semantic = math.Round(sim*100) / 100
			c.relevance = sim - 0.25
		}
	}
	return nil
}

// EmbeddingCache is an Embedder that embeds only the texts whose vector it
// does not hold yet, and keeps each new vector in a file of its own under
// Dir/<model hash>/, written through Tree.
type EmbeddingCache struct {
	Embedder Embedder
	Model    string
	Dir      string
	Tree     fsx.Tree
}

// Embed returns one vector per text.
func (c *EmbeddingCache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	mh := sha256.Sum256([]byte(c.Model))
	dir := filepath.Join(c.Dir, hex.EncodeToString(mh[:])[:12])
	out := make([][]float32, len(texts))
	var missing []int
	paths := make([]string, len(texts))
	for i, t := range texts {
		h := sha256.Sum256([]byte(t))
		paths[i] = filepath.Join(dir, hex.EncodeToString(h[:])[:32]+".f32")
		if v, ok := readVector(paths[i]); ok {
			out[i] = v
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	batch := make([]string, len(missing))
	for j, i := range missing {
		batch[j] = texts[i]
	}
	vecs, err := c.Embedder.Embed(ctx, batch)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(batch) {
		return nil, fmt.Errorf("%d vectors for %d texts", len(vecs), len(batch))
	}
	if err := c.Tree.MkdirAll(dir); err != nil {
		return nil, err
	}
	for j, i := range missing {
		out[i] = vecs[j]
		buf := make([]byte, 4*len(vecs[j]))
		for d, f := range vecs[j] {
			binary.LittleEndian.PutUint32(buf[4*d:], math.Float32bits(f))
		}
		if err := c.Tree.WriteFile(paths[i], buf, 0o644); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readVector(p string) ([]float32, bool) {
	b, err := fsx.ReadFileNoFollow(p)
	if err != nil || len(b) == 0 || len(b)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, true
}
