// Package secrets is what redaction shares that needs no detector: the
// secret values found (Secret), a session's memory of them and of their
// derived forms (Memory, Saved), the spans a redaction replaces and their
// markers, JSON string mapping, and chunked lower-casing. The detector
// (gitleaks' rules and kb's, internal/redact) is heavy to link; traces
// and the hook entry point import only this.
package secrets
