// Package index owns kb's derived search index: a bleve v2 (scorch) index
// on disk under <kb root>/.index/, plus two small sidecar files that make it
// incremental and self-healing.
//
// The markdown/JSONL files are the truth; everything here can be thrown away
// and rebuilt. Layout of the index directory:
//
//	schema      text file holding SchemaVersion; an index of another version is rebuilt
//	stamps      binary file: (mtime, size) of every indexed source file, the
//	            progress of append-only files, and the generation of the last
//	            Apply it holds (see below); CRC-checked
//	stamps.log  binary, append-only: the stamps each Apply since the stamps
//	            file was written changed, one CRC-checked record per Apply
//	journal     JSON: the files the Apply in progress is changing (absent between Applies)
//	bleve/      the bleve index (index_meta.json + store/)
//
// Everything is keyed by source file: one file may yield many docs (a trace
// session file yields one doc per dialogue turn). Apply replaces all docs of a
// file, then persists the stamps it changed. Each Apply also stores a
// generation counter inside bleve (in every batch) and with its stamps; Open
// compares the two, so a deleted store directory or a stamps file from
// another index is detected and the index is rebuilt from scratch instead of
// silently drifting from the files.
//
// The stamps of an index are the stamps file's with the records of the
// stamps log applied (see stampLogFile): an Apply appends one fsynced record
// of the files it changed, so an edit costs one short write, not a rewrite
// of the stamps of every file (5 MB at 100,000 files), and the log is
// compacted into the stamps file (written whole, atomically with
// internal/fsx) when it holds more than an eighth of its entries. The log
// is bound to the stamps file it extends (generation and checksum), its
// records follow one another by generation, and reading stops at the first
// torn or corrupt record: a process killed while appending leaves the
// stamps one generation behind bleve, the case the journal resumes (below),
// and a writer cuts the torn bytes off before it appends. Open keeps the
// stamps file undecoded: a search needs no stamp and a sync of a few
// changed paths (kb watch's) looks a few up in one pass over it; they are
// decoded when every stamp is needed (a full sync). OpenToSearch, for a
// query whose caller knows the files match bleve's generation (kb watch's
// freshness keeper), does not read them at all until asked.
//
// Bounded and resumable work: Apply commits its docs in batches bounded by
// count (batchDocs) and bytes (batchBytes), and a body over MaxBody is cut to
// its head (Doc.Truncated keeps the full size). A large file is indexed in
// parts, one Apply each (Change.Append, Change.Partial), so the caller never
// holds more than a part. Before its first batch Apply writes the journal; a
// process killed after some batches leaves bleve one generation ahead of the
// stamps, and Open then resumes from the journal rather than rebuilding: the
// files being replaced or removed are stamped incomplete (the next sync takes
// them up again and Apply looks up their docs), and the files being appended
// to keep their last recorded Progress (the next sync appends from there; the
// same docs get the same ids). A generation mismatch without a matching
// journal is still rebuilt. As a consequence every doc in an open index
// belongs to a stamped file, and Apply only needs to look up the old docs of
// files it has a stamp for.
//
// Indexing bypasses bleve's reflection-based mapper: docs are turned into
// bleve documents directly (Batch.IndexAdvanced), with field options and
// analyzers taken from one field table that also produces the bleve mapping
// stored in index_meta.json (the mapping is what query-time analysis uses).
// Free-form fields (Doc.Text, Doc.Keywords, Doc.Num) become top-level fields
// named after their keys, so `trigger:migration` and `importance:>0.5` work;
// their kinds are recorded in a registry kept inside bleve (internal key) so
// that a keyword field is queried with the keyword analyzer.
//
// Query design: user text is parsed with bleve's query-string syntax and the
// resulting tree is rewritten. A term without a field is expanded into a
// disjunction over title^3, description^2, id^2, tags^2, body and _text (an
// unstored field holding all Doc.Text values), which gives the title boost
// at query time without an _all field. Filters (layers, types, tags,
// statuses) go into BooleanQuery.Filter, which restricts without scoring.
//
// Storage/speed trade-off: title, description and body are indexed with term
// vectors (positions; phrase queries need them) and stored. Body is stored so
// that Get returns the whole doc and Search can build a snippet from one index
// read, without touching the source files; zap compresses stored fields, and
// the benchmarks report the resulting size. Snippets are computed here
// (analyze the stored body with the same English analyzer, pick the window
// with the most query terms) rather than by bleve's highlighter, so searches
// do not need to collect term locations. No doc values are kept (no sorting
// by field), which keeps the index small and batches fast.
//
// Locking: bleve holds an exclusive flock on store/root.bolt while an Index
// is open. A second Open in another process waits up to BusyTimeout and then
// fails with ErrBusy; it never treats a busy index as corrupt.
package index
