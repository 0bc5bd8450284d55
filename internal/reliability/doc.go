// Package reliability holds kb's end-to-end reliability suites. It has no
// production code: its tests build the kb binary (go build ./cmd/kb) into a
// temporary directory and drive it as subprocesses, the way agents and people
// run it, under faults, load and bad input:
//
//   - crash safety: kb import, extract, learn (and promote --apply once it
//     exists) killed with SIGKILL at random points, then checked with kb lint
//     and kb doctor and re-run to completion against a clean reference;
//   - concurrency: kb watch running while importers, extractors, recallers
//     and note editors work at once, with lock waits and busy-index failures
//     counted;
//   - index faults: a truncated, deleted, garbage or old-schema index under
//     every read command;
//   - hostile input: the corpus in testdata/hostile plus inputs generated at
//     test time (10 MB lines, 10k-deep JSON, symlinks out of the KB, ".."
//     ids and links, directories named like files, PNG transcripts);
//   - memory poisoning: injected instructions in tool output, fetched pages
//     and read files must never become lessons, library notes, AGENTS.md
//     entries or recall/hook instructions;
//   - filesystem safety: symlinks a cloned KB commits in .state/, the
//     layers and the project (.continual-learning/), a person's edit made
//     between kb's write and its rename, temp files an interrupted write
//     leaves in the project;
//   - redaction: secrets of every kind seen leaking (password flags,
//     URLs, cookies, .pgpass, inline JSON, prose, branch names, base64,
//     keys cut by line breaks, values repeated later in the session or in
//     a later import, their hashes) planted in a Claude Code session,
//     imported, extracted, indexed and committed, then looked for in
//     traces/, the index, observations/, .state/ and every git object;
//   - long runs: kb watch under compressed transcript traffic keeps its
//     memory, threads and file descriptors flat; hooks and kb mcp exit when
//     their request is done.
//
// Every suite has a short mode that runs in `go test ./...` and a long mode
// selected with KB_RELIABILITY=long. docs/reliability.md records what was
// tried and what held.
package reliability
