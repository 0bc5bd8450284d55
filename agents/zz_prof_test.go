package agents

import (
	"bytes"
	"io"
	"os"
	"testing"
)

func BenchmarkZZHookWrite(b *testing.B) {
	ev, _ := os.ReadFile(os.Getenv("ZZ_EVENT"))
	kb := os.Getenv("ZZ_KB")
	env := func(k string) string {
		if k == "KB_HOOK_NO_INDEX" {
			return "1"
		}
		return os.Getenv(k)
	}
	for i := 0; i < b.N; i++ {
		HookMain([]string{"--kb", kb, "claude-code"}, bytes.NewReader(ev), io.Discard, io.Discard, env)
	}
}
