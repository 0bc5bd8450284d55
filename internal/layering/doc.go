// Package layering holds the import rule of kb as a test: every package
// imports only packages below it, in the order of docs/architecture.md.
// It has no code; `go test ./internal/layering` checks the rule on the
// imports `go list` reports.
package layering
