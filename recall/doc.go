// Package recall is kb's activation engine: given the moment an agent is
// at (a task, a proposed tool call, files), it finds the few lessons that
// apply and renders them, ranked and cut to a budget, for the agent's
// context.
//
// The engine owns its rules and declares what it needs from the rest of
// kb as small ports (ports.go): a Searcher over the index, a Reader of
// observation and library files, an optional Embedder and Judge, a Clock.
// Package kb implements them over internal/index and the layer packages.
//
// The steps, one file each:
//
//   - cue.go: a query analysed once into a cue (action types, words, files,
//     the proposed action in a few words); words.go and paths.go are the
//     tokens it is made of.
//   - candidates.go: the indexed documents a cue retrieves, read from their
//     stored fields.
//   - match.go: how well a candidate applies (action types, trigger
//     phrases, the same file, lexical overlap as a precision check).
//   - rank.go: priority (relevance x recency x consequence x frequency),
//     project scope, one line for a lesson two layers give, and per-kind
//     budgets.
//   - render.go: the imperative line of each item and the markdown block.
//   - semantic.go: the optional embeddings layer and its vector cache.
//   - judge.go: the optional LLM judge of high-consequence items.
//   - engine.go: Engine.Recall, which runs them in order.
package recall
