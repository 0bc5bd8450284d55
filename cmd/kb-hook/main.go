// Command kb-hook answers one agent hook event read on stdin, as
// `kb hook AGENT` does, from the KB's activation index. It is the entry
// point `kb hook install` writes into the agents' settings: agents run it
// before every tool call, so it links only what an answer needs (package
// agents and below: no bleve, no go-git, no cobra) and starts about as
// fast as an empty Go program (ADR 0008, BENCHMARKS.md).
//
//	kb-hook [--kb DIR] claude-code|codex
//
// Like `kb hook`, it fails open: whatever goes wrong is logged to the
// KB's .state/hook.log, nothing is printed and it exits 0. With no
// activation index, or one older than the layer directories, it answers
// from what exists and starts `kb index --background` (not with
// KB_HOOK_NO_INDEX=1); a session's end queues its transcript and starts
// `kb extract --queue` (not with KB_HOOK_NO_DRAIN=1). kb is looked for
// beside kb-hook, then on PATH. When kb.yaml turns on the embeddings
// layer or the judge, which need an HTTP client, the event is handed to
// `kb hook AGENT`.
package main

import (
	"os"

	"github.com/kbmem/kb/agents"
)

func main() {
	os.Exit(agents.HookMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
