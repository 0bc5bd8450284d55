package watch

import (
	"context"
	"time"
)

// Loop is a watcher with timers: it watches Paths and calls OnBatch for
// each batch of events, OnTick every Tick and OnEvery every Every (0 =
// never). The callbacks are made one at a time on Run's goroutine, so they
// need no locking between them.
type Loop struct {
	Options
	Paths   []string
	Tick    time.Duration
	Every   time.Duration
	Started func() // once every path is watched
	OnBatch func([]Event)
	OnTick  func()
	OnEvery func()
}

// Run watches until ctx is done (then it returns nil) or the watcher
// fails. A path that cannot be watched is an error before anything runs.
func (l Loop) Run(ctx context.Context) error {
	fw, err := New(l.Options)
	if err != nil {
		return err
	}
	defer fw.Close()
	for _, p := range l.Paths {
		if err := fw.Add(p); err != nil {
			return err
		}
	}
	if l.Started != nil {
		l.Started()
	}
	batches := make(chan []Event)
	runErr := make(chan error, 1)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		runErr <- fw.Run(rctx, func(b []Event) {
			select {
			case batches <- b:
			case <-rctx.Done():
			}
		})
	}()
	tick := time.NewTicker(l.Tick)
	defer tick.Stop()
	var everyC <-chan time.Time
	if l.Every > 0 {
		t := time.NewTicker(l.Every)
		defer t.Stop()
		everyC = t.C
	}
	for {
		select {
		case <-everyC:
			l.OnEvery()
		case <-ctx.Done():
			cancel()
			<-runErr
			return nil
		case err := <-runErr:
			if ctx.Err() != nil {
				return nil
			}
			return err
		case b := <-batches:
			l.OnBatch(b)
		case <-tick.C:
			l.OnTick()
		}
	}
}
