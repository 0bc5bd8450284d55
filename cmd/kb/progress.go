package main

import (
	"os"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// progress returns a callback drawing a progress bar on stderr, or nil when
// stderr is not a terminal, output is JSON, or --quiet is set.
func (e *env) progress(label string) func(done, total int) {
	f, ok := e.err.(*os.File)
	if !ok || e.json || e.quiet || !isatty.IsTerminal(f.Fd()) {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if total < 200 { // short work needs no bar (in files or KiB)
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(label),
				progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100e6))
		}
		bar.Set(done)
		if done >= total {
			bar.Finish()
		}
	}
}
