package traces

import (
	"context"
	"fmt"
)

// ImportQueued imports the transcripts a drain took from the queue
// (TakeQueue), one at a time: a transcript that fails to import is a
// problem and the others go on. It returns the transcripts imported and
// the sessions they hold. log, if set, hears of each transcript with parts
// skipped and of each that failed: a drain runs detached from the hook
// that queued it, so its output reaches nobody.
func (s *Store) ImportQueued(ctx context.Context, paths []string, log func(error)) (imported, sessions []string, probs []Problem, err error) {
	if log == nil {
		log = func(error) {}
	}
	sessions = []string{}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		res, err := s.Import(p, ImportOptions{})
		for _, pr := range res.Problems {
			probs = append(probs, Problem{Path: pr.Path, Line: pr.Line, Msg: pr.Msg, Rule: "import"})
		}
		if len(res.Problems) > 0 {
			log(fmt.Errorf("import %s: %d part(s) skipped, first: %s", p, len(res.Problems), res.Problems[0].Error()))
		}
		if err != nil {
			log(fmt.Errorf("import failed: %w", err))
			probs = append(probs, Problem{Path: p, Msg: err.Error(), Rule: "import"})
			continue
		}
		imported = append(imported, p)
		sessions = append(sessions, res.Sessions...)
	}
	return imported, sessions, probs, nil
}
