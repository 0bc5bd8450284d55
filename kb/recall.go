package kb

import (
	"context"
	"errors"
	"fmt"

	"github.com/kbmem/kb/internal/index"
	"github.com/kbmem/kb/recall"
)

// Recall's value types, as cmd/kb and the faces know them (package recall
// owns them).
type (
	RecallQuery  = recall.Query
	RecallItem   = recall.Item
	RecallResult = recall.Result
)

// Budget classes: each kind of item has its own reserved share of the budget.
const (
	KindCorrections = recall.KindCorrections
	KindPreferences = recall.KindPreferences
	KindProcedures  = recall.KindProcedures
	KindPrecedents  = recall.KindPrecedents
	KindLibrary     = recall.KindLibrary
)

// Tokens estimates the tokens of s: about four characters a token.
func Tokens(s string) int { return recall.Tokens(s) }

// Recall finds the knowledge that applies to q and returns it ranked and
// cut to the budget (see package recall). It reads the index as it is when
// no file changed since the last sync, and syncs it first otherwise.
//
// While another process holds the search index for writing (a sync, kb
// watch), it answers from the activation index instead, as hooks do (the
// same answers, as of the last compile; ADR 0008), and says so.
func (k *KB) Recall(ctx context.Context, q RecallQuery) (*RecallResult, error) {
	x, err := k.openRecallIndex(ctx)
	if errors.Is(err, index.ErrBusy) {
		if res, cerr := k.recallCompiled(ctx, q); cerr == nil {
			k.logf("recall: the search index is busy (another kb is writing it): answered from the activation index")
			return res, nil
		}
	}
	if err != nil {
		return nil, err
	}
	defer x.Close()
	return x.Recall(ctx, q)
}

// recallCompiled is recall over the activation index.
func (k *KB) recallCompiled(ctx context.Context, q RecallQuery) (*RecallResult, error) {
	c, err := recall.OpenCompiled(k.activationPath())
	if err != nil {
		return nil, err
	}
	defer c.Close()
	e, err := recall.CompiledEngine(c, k.Config, k.ProjectRoot == k.Root, k.Root)
	if err != nil {
		return nil, err
	}
	k.extendEngine(e, q.Standing)
	return e.Recall(ctx, q)
}

// Recall is KB.Recall over an index already open.
func (x *Searcher) Recall(ctx context.Context, q RecallQuery) (*RecallResult, error) {
	e, err := x.recallEngine(q)
	if err != nil {
		return nil, err
	}
	return e.Recall(ctx, q)
}

// openRecallIndex opens the index for a read. When no file changed since
// the last sync (the usual case for a hook) it opens it read-only, which is
// cheaper and lets concurrent hooks read side by side; otherwise it opens it
// for writing and syncs.
func (k *KB) openRecallIndex(ctx context.Context) (*Searcher, error) {
	dir, err := k.indexDir()
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	ro, err := index.OpenReadOnly(dir)
	if errors.Is(err, index.ErrBusy) {
		// A writer holds it: waiting twice would take two BusyTimeouts.
		return nil, fmt.Errorf("recall: %w", err)
	}
	if err == nil {
		// Fast path: no directory recall reads changed since the last
		// sync (a few stats instead of one per file).
		if k.dirsUnchanged() {
			return &Searcher{ix: ro, k: k}, nil
		}
		if files, err := k.scan(); err == nil && index.UpToDate(files, ro.Stamps()) {
			return &Searcher{ix: ro, k: k}, nil
		}
		ro.Close()
	}
	x, _, err := k.OpenIndex(ctx, nil)
	return x, err
}
