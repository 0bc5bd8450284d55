package kb

import (
	"context"
	"strings"

	"github.com/kbmem/kb/recall"
)

// What a long-running face (the MCP server, package mcpserver) needs of the
// facade beyond what cmd/kb uses.

// OpenRecallIndex opens the index for one read the way recall does:
// read-only when no file changed since the last sync (so that concurrent
// readers, hooks among them, read side by side), else for writing, synced.
// A server opens it per call and closes it again, so that it never keeps
// other kb processes waiting.
func (k *KB) OpenRecallIndex(ctx context.Context) (*Searcher, error) { return k.openRecallIndex(ctx) }

// CueQuery turns free words into a search query without syntax: the words
// recall matches cues on, every one optional, no operators.
func CueQuery(s string) string { return strings.Join(recall.Words(s), " ") }
