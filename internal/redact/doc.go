// Package redact owns secret redaction for everything kb imports from agent
// transcripts. Text and tool inputs pass through a Redactor before they are
// stored or indexed; every secret found is replaced by
// "[REDACTED:<rule-id>]" wherever it occurs in the text.
//
// Detection is gitleaks' default rule set used as a library
// (github.com/zricethezav/gitleaks/v8): each rule's regex, secret group,
// entropy threshold and allowlists are gitleaks' own. kb adds its own
// project rules (ids starting with "kb-") for shapes that turn up in
// transcripts and that gitleaks misses: passwords in URLs, .env and shell
// assignments, YAML/JSON members named like secrets (inline JSON too),
// Authorization headers, truncated private key blocks, password flags of
// command-line tools, secret-named flags, cookies, .pgpass lines and
// passwords in prose; and the user's own rules from kb.yaml
// (Options.Extra). Beyond single matches, a Redactor joins lines that look
// cut by a wrap and searches them again (wrap.go), and decodes base64 runs
// that hold text and searches that (decode.go). A Finding carries only the
// rule and the line, never the secret; Redact and RedactJSON also return
// the secret values, for a Memory (memory.go) that removes every later
// occurrence of them, and of their base64, hashes, escapes and wraps, in
// the rest of a session, and persists only keyed hashes of them.
//
// gitleaks runs a rule over the whole text as soon as the rule's keyword
// occurs anywhere in it, which with Go's regexp is far too slow for
// transcripts. The Redactor therefore drives gitleaks rule by rule over
// small windows around each keyword occurrence (see scan.go);
// TestEngineCoversGitleaks checks that it still finds everything gitleaks
// finds on the whole text.
package redact
