package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// ReadHookEvent reads one hook event, a JSON value, from r (an agent's
// stdin): as soon as it is complete, without waiting for the end of r,
// which an agent may leave open; at most limit bytes; and within timeout
// (or ctx). On a timeout the read goes on in its goroutine, which the
// process's exit ends. Bytes after the value are left unread.
func ReadHookEvent(ctx context.Context, r io.Reader, limit int64, timeout time.Duration) (json.RawMessage, error) {
	type result struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan result, 1)
	go func() {
		cr := &countingReader{r: io.LimitReader(r, limit+1)}
		var raw json.RawMessage
		err := json.NewDecoder(cr).Decode(&raw)
		switch {
		case cr.n > limit:
			err = fmt.Errorf("%w: hook event over %d bytes", ErrInvalidInput, limit)
		case errors.Is(err, io.EOF):
			err = fmt.Errorf("%w: no hook event on stdin", ErrInvalidInput)
		case err != nil:
			err = fmt.Errorf("%w: hook input is not JSON: %v", ErrInvalidInput, err)
		}
		ch <- result{raw, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-ch:
		return res.raw, res.err
	case <-t.C:
		return nil, fmt.Errorf("%w: no complete hook event on stdin within %s", ErrInvalidInput, timeout)
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: no complete hook event on stdin: %v", ErrInvalidInput, ctx.Err())
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
