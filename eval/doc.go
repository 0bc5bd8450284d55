// Package eval measures kb from the outside, through the facade, as a user
// would run it: each evaluation builds a fresh KB in a temporary directory
// (or one the caller names and keeps), feeds it its data, and scores what
// kb returns. Nothing here touches a user's KB.
//
//   - Activation (activation.go): the hook handler on scenarios rendered by
//     make_sessions.py: recall over the probes that expect a lesson, false
//     fires over those that expect nothing (`kb eval activation`).
//   - Locomo (locomo.go): long-memory retrieval on the LoCoMo benchmark,
//     recall@k and nDCG@k of kb search and kb recall per question category
//     (`kb eval locomo`).
//   - Extraction (extraction.go, extractionkey.go): the extraction against
//     hand-labelled person messages of real sessions (keys/README.md):
//     recall and precision per observation type, sure and lenient, per
//     half, agent, language and file (`kb eval extraction`).
package eval
