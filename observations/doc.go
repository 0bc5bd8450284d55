// Package observations owns kb's observation layer (layer 2): the atomic,
// typed facts extracted from trace records — corrections, preferences,
// procedures, decisions, negative results, discoveries and questions — and
// the action-type taxonomy that lets a correction learned in one session
// fire when the agent is about to repeat the action in another.
//
// # Action types
//
// Classify, ClassifyCall and ClassifyText map an action (a tool call, a
// shell command, written paths and content, or a free-text description) to
// action types "domain:verb[:object]" such as git:push-force or
// sql:drop-column. Shell commands are parsed with mvdan.cc/sh, never
// grepped; free text is matched by stemmed word cues. The built-in table is
// in builtin.go and documented in ACTIONTYPES.md; NewTaxonomy adds rules
// from kb.yaml.
//
// # Extraction
//
// Extract runs one narrow heuristic extractor per observation type over a
// Session. Provenance is strict: only what the person typed (traces.Record
// Human() messages, rejection reasons) and did (rejections, interrupts) can
// become a correction, preference or procedure; tool output, fetched pages,
// files, agent messages, sub-agent prompts and harness-injected text never
// do. Every observation records the composite-oracle Signals it was scored
// with. Procedures mines recurring tool-call sequences across sessions.
// Similar, Merge and Dedupe fold near-duplicates, so a correction seen in
// two sessions is one observation with Sessions == 2.
//
// Observations are rendered to markdown files through internal/doc with
// Fields and Body, and read back with FromMap.
package observations
