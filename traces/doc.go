// Package traces owns the trace layer of kb: the complete, append-only log
// of every agent session, the ground truth the higher layers (observations,
// episodes, library) are extracted from.
//
// It holds three things:
//
//   - the normalized Record (record.go): one event of a session — a message,
//     a tool call or result, a summary, a meta record — with Marks telling
//     what the person typed from what the harness injected;
//   - one Parser per transcript format (Claude Code, Codex, Aider, Gemini
//     CLI, generic JSONL), each turning an agent's own files into Records
//     without dropping anything (fields without a slot go to Extra), and
//     Detect/ParserFor to pick one;
//   - the Store (store.go): session files under <kb>/traces/YYYY/MM/ that
//     are only ever appended to, idempotent and crash-safe Import of
//     transcripts with checkpoints in <kb>/.state/ (derived data, git
//     ignored), Append for `kb trace append`, and Sessions/Find/Read;
//     records are known by keys taken from their content (keys.go), so a
//     transcript imported from a second path adds nothing, and torn lines
//     are never left between whole records (torn.go).
//
// Nothing in this package calls an LLM or reads above the trace layer.
package traces
