// Package redact owns secret redaction for everything kb imports from agent
// transcripts. Text and tool inputs pass through a Redactor before they are
// stored or indexed; every secret found is replaced by
// "[REDACTED:<rule-id>]" wherever it occurs in the text.
//
// Detection is gitleaks' default rule set used as a library
// (github.com/zricethezav/gitleaks/v8): each rule's regex, secret group,
// entropy threshold and allowlists are gitleaks' own. kb adds a handful of
// project rules (ids starting with "kb-") for shapes that turn up in
// transcripts and that gitleaks misses: passwords in URLs, .env and shell
// assignments, YAML/JSON members named like secrets, Authorization headers
// and truncated private key blocks; and the user's own rules from kb.yaml
// (Options.Extra). A Finding carries only the rule and the line, never the
// secret.
//
// gitleaks runs a rule over the whole text as soon as the rule's keyword
// occurs anywhere in it, which with Go's regexp is far too slow for
// transcripts. The Redactor therefore drives gitleaks rule by rule over
// small windows around each keyword occurrence (see scan.go);
// TestEngineCoversGitleaks checks that it still finds everything gitleaks
// finds on the whole text.
package redact
