package agents

import (
	"errors"

	"context"
	"fmt"
	"github.com/kbmem/kb/internal/lock"
	"io"
	"time"
)

// HookRun is what RunHook needs of one hook run: its bounds, and the KB
// side (finding the KB, answering, starting its background work) as
// functions.
type HookRun struct {
	Agent       string
	MaxInput    int64         // bytes of the event read from stdin
	ReadTimeout time.Duration // wait for a complete event
	Budget      time.Duration // from the event to the answer
	// Open finds and opens the KB for the event's cwd ("" when the event
	// has none): the KB root ("" when there is no KB), and an error that is
	// logged when there is a root.
	Open func(cwd string) (root string, err error)
	// Answer answers the event; stale says why the index needs a rebuild
	// or a sync ("" when it is up to date).
	Answer func(ctx context.Context, in *HookInput) (out *HookOutput, stale string, err error)
	// Reindex, if set, starts a background indexer for a stale index
	// (IndexExe --kb ROOT --quiet index --background), and says whether it
	// started one.
	Reindex  func(root string) (started bool, err error)
	IndexExe func() string
	// DrainExe, if set and it names one, is started detached after a
	// session end queued a transcript: DrainExe --kb ROOT --quiet extract
	// --queue. Both are looked up only when needed: finding an executable
	// costs system calls every other hook call would pay for nothing.
	DrainExe func() string
	LogPath  func(root string) string // the hook log of a KB
	Kind     func(err error) string   // an error's kind in the log (error, locked, bad-input)
}

// RunHook is the fail-open hook run: it reads one event from r, opens the
// KB (o.Open), and writes the answer to w. Any problem (no KB, bad input, a
// busy index, an internal error, the budget spent) is logged as one line
// to the KB's hook log when a KB exists, and nothing is written: a hook
// must never block the agent. The returned error is for callers that want
// it; the process should exit 0 regardless.
func RunHook(ctx context.Context, r io.Reader, w io.Writer, o HookRun) error {
	in, err := ReadEvent(ctx, r, o.MaxInput, o.ReadTimeout)
	ctx, cancel := context.WithTimeout(ctx, o.Budget)
	defer cancel()
	cwd := ""
	if in != nil {
		cwd = in.Cwd
	}
	root, oerr := o.Open(cwd)
	if root == "" {
		if err == nil {
			err = oerr
		}
		return err // no KB: nowhere to log
	}
	if oerr != nil {
		o.log(root, in, oerr)
		return oerr
	}
	if err != nil {
		o.log(root, in, err)
		return err
	}
	type answer struct {
		out   *HookOutput
		stale string
	}
	a, aerr := AnswerWithin(ctx, o.Budget, func() (answer, error) {
		out, stale, err := o.Answer(ctx, in)
		return answer{out, stale}, err
	})
	if a.stale != "" && o.Reindex != nil {
		started, err := o.Reindex(root)
		switch {
		case err != nil:
			o.log(root, in, fmt.Errorf("index %s; start %s index --background: %w", a.stale, o.IndexExe(), err))
		case started:
			o.line(root, in, "index", "index "+a.stale+": started kb index --background")
		}
	}
	if aerr != nil {
		o.log(root, in, aerr)
		return aerr
	}
	if d, ok := Lookup(o.Agent); ok && d.Ends(in.HookEventName) && in.TranscriptPath != "" && o.DrainExe != nil {
		if exe := o.DrainExe(); exe != "" {
			if err := StartDetached(root, nil, exe, "--kb", root, "--quiet", "extract", "--queue"); err != nil {
				o.log(root, in, fmt.Errorf("start %s extract --queue: %w", exe, err))
			}
		}
	}
	if a.out == nil {
		return nil
	}
	b, err := a.out.JSON()
	if err == nil {
		_, err = w.Write(b)
	}
	if err != nil {
		o.log(root, in, err)
	}
	return err
}

// log appends one line about a failed hook to the hook log.
func (o HookRun) log(root string, in *HookInput, err error) {
	if root == "" || err == nil {
		return
	}
	o.line(root, in, o.Kind(err), err.Error())
}

// line appends one line to the hook log.
func (o HookRun) line(root string, in *HookInput, kind, msg string) {
	LogHook(root, o.LogPath(root), in, kind, msg)
}

// The bounds of one hook. kb installs its hooks with a timeout of 5
// seconds (Install), after which the agent kills them; together these stay
// well under it.
const (
	// MaxHookInput bounds the event a hook reads from stdin; a larger one
	// is answered with nothing and logged.
	MaxHookInput int64 = 8 << 20
	// HookReadTimeout bounds the wait for a complete event on stdin. The
	// event is read as soon as one whole JSON value has arrived, without
	// waiting for the end of stdin, which an agent may leave open.
	HookReadTimeout = 1 * time.Second
	// HookBudget bounds the time from the event to the answer: a hook
	// still working then answers with nothing and logs "over budget".
	HookBudget = 2500 * time.Millisecond
)

// ErrorKind is an error's kind in the hook log: locked (the KB write lock
// is held), bad-input, or error.
func ErrorKind(err error) string {
	switch {
	case errors.Is(err, lock.ErrLocked):
		return "locked"
	case errors.Is(err, ErrInvalidInput):
		return "bad-input"
	}
	return "error"
}
