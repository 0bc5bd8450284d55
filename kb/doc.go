// Package kb is the facade over a knowledge base on disk: it finds and
// opens a KB, holds its write lock, keeps the derived search index and link
// graph in step with the files, and runs the pipelines that move material
// between the layers (import traces, extract observations, build episodes,
// promote to the library, recall, learn).
//
// # Layout of a KB root
//
//	kb.yaml          configuration (every setting, commented)
//	traces/          layer 1: append-only JSONL session logs
//	observations/    layer 2: typed atomic facts, one markdown file each
//	episodes/        layer 3: compressed accounts of work units
//	library/         layer 4: curated notes, conventions, procedures, ADRs
//	.index/          derived search index (git-ignored, rebuildable)
//	.state/          derived import checkpoints, snapshots, logs (git-ignored)
//
// Commands in cmd/kb call this package and print; they hold no logic.
package kb
