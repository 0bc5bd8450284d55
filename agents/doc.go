// Package agents is what kb knows about the coding agents it serves
// through hooks: how each one sends a hook event (read.go reads it from
// stdin within bounds) and reads the answer (hook.go), which agents there
// are and how they differ (dialect.go), and how kb's hooks are merged
// into, and removed from, an agent's settings file (install.go, over an
// editor of JSON objects that keeps every other byte, jsonobject.go).
//
// It decides nothing about what to recall: an event becomes a
// recall.Query, and a recall.Result becomes the agent's answer. Package kb
// runs recall in between.
package agents

import "errors"

// ErrInvalidInput marks an event or a settings file that cannot be read
// as one (kb.ErrInvalidInput is the same error).
var ErrInvalidInput = errors.New("invalid input")
