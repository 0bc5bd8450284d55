// Package episodes owns layer 3: compressed accounts of bounded work units
// that may span several sessions (design: "Layer 3: Episode"). It groups
// sessions into episodes with the design's boundary heuristics (shared file
// paths, git branch, task references, temporal proximity, topic similarity,
// explicit start and done markers), fills each episode's goal, scope,
// outcome, key decisions and corrections (observation ids), lessons, open
// threads and artifacts, and renders and parses episode markdown files.
// It does no I/O: the kb package reads sessions and writes the files.
package episodes
