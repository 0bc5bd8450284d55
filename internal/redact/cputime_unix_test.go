//go:build unix

package redact

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time this process has used, so that benchmarks
// can report throughput per CPU-second, which a loaded machine does not
// distort the way it distorts wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
