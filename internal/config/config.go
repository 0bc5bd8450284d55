// Package config is kb.yaml, the KB's configuration document: its schema,
// the defaults (templates/kb.yaml), parsing with positioned errors and
// validation. kb reads the file and hands each room its section; see
// docs/decisions/0007-configuration-document-below-the-facade.md.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kbmem/kb/internal/diag"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/templates"
	"gopkg.in/yaml.v3"
)

// Config is kb.yaml. Every setting has a default; DefaultConfigYAML is the
// commented file `kb init` writes.
type Config struct {
	Version     int              `yaml:"version"`
	Traces      TracesConfig     `yaml:"traces"`
	Extract     ExtractConfig    `yaml:"extract"`
	ActionTypes []ActionTypeRule `yaml:"action_types"`
	Recall      RecallConfig     `yaml:"recall"`
	Promote     PromoteConfig    `yaml:"promote"`
	Learn       LearnConfig      `yaml:"learn"`
	Lock        LockConfig       `yaml:"lock"`
	Watch       WatchConfig      `yaml:"watch"`
	LLM         LLMConfig        `yaml:"llm"`
	Embeddings  EmbeddingsConfig `yaml:"embeddings"`
	Share       ShareConfig      `yaml:"share"`
}

// TracesConfig configures the trace layer.
type TracesConfig struct {
	Redact      bool         `yaml:"redact"`
	RedactRules []RedactRule `yaml:"redact_rules"`
	ClaudeCode  []string     `yaml:"claude_code"`
	Codex       []string     `yaml:"codex"`
	Extra       []string     `yaml:"sources"`
}

// RedactRule is a project-level secret rule added to gitleaks' rules.
type RedactRule struct {
	ID          string   `yaml:"id"`
	Regex       string   `yaml:"regex"`
	Keywords    []string `yaml:"keywords"`
	SecretGroup int      `yaml:"secret_group"`
}

// ExtractConfig configures observation extraction.
type ExtractConfig struct {
	Types []string `yaml:"types"`
	LLM   bool     `yaml:"llm"`
}

// ActionTypeRule extends the action-type taxonomy.
type ActionTypeRule struct {
	Type     string   `yaml:"type"`
	Commands []string `yaml:"commands"`
	Paths    []string `yaml:"paths"`
	Content  []string `yaml:"content"`
	Words    []string `yaml:"words"`
}

// RecallConfig configures activation.
type RecallConfig struct {
	Budget          int            `yaml:"budget"`
	Budgets         map[string]int `yaml:"budgets"`
	HighConsequence []string       `yaml:"high_consequence"`
	PreToolUse      string         `yaml:"pretooluse"`
	Judge           bool           `yaml:"judge"`
	// Equivalents are more lines of recall's lexicon of equivalents
	// ("phrase | phrase => canonical words", recall/intent.txt); recall
	// checks them (kb.ParseConfig), since this leaf cannot.
	Equivalents []string `yaml:"equivalents"`
}

// PromoteConfig holds the graduation rules.
type PromoteConfig struct {
	CorrectionMinSessions    int     `yaml:"correction_min_sessions"`
	PreferenceMinDecisions   int     `yaml:"preference_min_decisions"`
	PreferenceMinSessions    int     `yaml:"preference_min_sessions"`
	PreferenceMinConsistency float64 `yaml:"preference_min_consistency"`
	ProcedureMinSessions     int     `yaml:"procedure_min_sessions"`
	DecisionMinImportance    float64 `yaml:"decision_min_importance"`
	DiscoveryMinReferences   int     `yaml:"discovery_min_references"`
	PatternMinCluster        int     `yaml:"pattern_min_cluster"`
	BranchPrefix             string  `yaml:"branch_prefix"`
}

// LearnConfig configures `kb learn`.
type LearnConfig struct {
	Target        string `yaml:"target"`
	KeepSnapshots int    `yaml:"keep_snapshots"`
}

// LockConfig configures the KB write lock.
type LockConfig struct {
	Timeout Duration `yaml:"timeout"`
}

// WatchConfig configures `kb watch`.
type WatchConfig struct {
	QuietAfter Duration `yaml:"quiet_after"`
	Debounce   Duration `yaml:"debounce"`
	LearnEvery Duration `yaml:"learn_every"`
	// KeeperFiles: a read that stat'ed at least this many files, with no
	// freshness keeper running, starts one in the background (kb watch
	// --keeper); 0: never.
	KeeperFiles int `yaml:"keeper_files"`
	// KeeperIdle: such a keeper exits after this long without a query.
	KeeperIdle Duration `yaml:"keeper_idle"`
}

// LLMConfig selects the optional LLM provider used by extraction, episode
// compression and the recall judge. Keys are read from the environment only.
type LLMConfig struct {
	Provider  string   `yaml:"provider"`
	Model     string   `yaml:"model"`
	BaseURL   string   `yaml:"base_url"`
	APIKeyEnv string   `yaml:"api_key_env"`
	Command   []string `yaml:"command"`
	Timeout   Duration `yaml:"timeout"`
}

// EmbeddingsConfig enables the optional semantic matching layer.
type EmbeddingsConfig struct {
	Enabled   bool   `yaml:"enabled"`
	BaseURL   string `yaml:"base_url"`
	Model     string `yaml:"model"`
	APIKeyEnv string `yaml:"api_key_env"`
}

// Duration is a time.Duration written as "10m" in YAML.
type Duration time.Duration

// UnmarshalYAML parses "10m", "1.5s", or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		var secs float64
		if _, e2 := fmt.Sscan(s, &secs); e2 != nil {
			return fmt.Errorf("line %d: %q is not a duration (like 10m or 30s)", n.Line, s)
		}
		v = time.Duration(secs * float64(time.Second))
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as text.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// DefaultConfigYAML is written by `kb init`: every setting with its default,
// commented (templates/kb.yaml). DefaultConfig parses it, so the two cannot
// drift apart.
var DefaultConfigYAML = templates.KBConfig

// Error is a kb.yaml problem with its line.
type Error = diag.Problem

// ParseConfig parses kb.yaml on top of the defaults: keys that are absent
// keep their default. Unknown keys are errors so that typos do not silently
// fall back to defaults.
func ParseConfig(b []byte) (Config, error) {
	c, err := freshDefaults()
	if err != nil {
		return c, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return c, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return c, configErr(err)
	}
	return c, c.validate()
}

// freshDefaults decodes the built-in file anew, so that callers never share
// the maps and slices of one another's Config.
func freshDefaults() (Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader([]byte(DefaultConfigYAML)))
	dec.KnownFields(true)
	err := dec.Decode(&c)
	return c, err
}

func configErr(err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		line := 0
		fmt.Sscanf(te.Errors[0], "line %d:", &line)
		return &Error{Line: line, Msg: configMsg(te.Errors[0])}
	}
	msg := err.Error()
	line := 0
	fmt.Sscanf(msg, "yaml: line %d:", &line)
	return &Error{Line: line, Msg: configMsg(strings.TrimPrefix(msg, "yaml: "))}
}

var (
	yamlLinePrefix = textutil.Lazy(`^line \d+: `)
	yamlUnknownKey = textutil.Lazy(`(?s)^field (.*) not found in type \S+$`)
	yamlValue      = textutil.Lazy("`([^`]*)`")
)

// configMsg rewrites a YAML decoder message about kb.yaml for people and
// logs: the line number goes (Error carries it), an unknown key is
// named as such, and every piece of the file's own text the message
// quotes (a key, a value) is Go-quoted, so that control characters,
// newlines and terminal escapes in a hostile kb.yaml reach neither a
// terminal nor a log line raw. (kb writes these messages only to stderr and
// to .state/hook.log, never through a symlink: see fsx.Tree.)
func configMsg(m string) string {
	m = yamlLinePrefix.ReplaceAllString(m, "")
	if sm := yamlUnknownKey.FindStringSubmatch(m); sm != nil {
		return "unknown key " + quoteConfigText(sm[1]) + " (a typo? kb init writes every key kb.yaml may hold)"
	}
	m = yamlValue.ReplaceAllStringFunc(m, func(v string) string { return quoteConfigText(v[1 : len(v)-1]) })
	return textutil.StripControl(m)
}

// quoteConfigText quotes text taken from kb.yaml, capped at 80 runes.
func quoteConfigText(s string) string {
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "..."
	}
	return strconv.Quote(s)
}

func (c Config) validate() error {
	switch c.Recall.PreToolUse {
	case "context", "ask", "deny":
	default:
		return &Error{Msg: fmt.Sprintf("recall.pretooluse must be context, ask or deny, not %q", c.Recall.PreToolUse)}
	}
	switch c.LLM.Provider {
	case "none", "", "openai", "anthropic", "command":
	default:
		return &Error{Msg: fmt.Sprintf("llm.provider must be none, openai, anthropic or command, not %q", c.LLM.Provider)}
	}
	if c.Recall.Budget < 0 {
		return &Error{Msg: "recall.budget must not be negative"}
	}
	if c.Watch.KeeperFiles < 0 || c.Watch.KeeperIdle.D() < 0 {
		return &Error{Msg: "watch.keeper_files and watch.keeper_idle must not be negative"}
	}
	if err := c.Share.validate(); err != nil {
		return &Error{Msg: err.Error()}
	}
	return nil
}

// Sharing: what the KB commits for the team and what stays on this
// machine (kb.yaml share:).
const (
	ShareLocal  = "local"
	ShareShared = "shared"
)

// ShareConfig is kb.yaml's share section: for traces, observations and
// episodes, "shared" (committed) or "local" (git-ignored). Traces left
// empty are local in a .kb/ inside a project repository (they hold
// everything a session saw) and shared in a standalone memory repository.
type ShareConfig struct {
	Traces       string `yaml:"traces"`
	Observations string `yaml:"observations"`
	Episodes     string `yaml:"episodes"`
}

// Local returns the layers the share section keeps on this machine, for a
// KB at root in the project at projectRoot. The section's keys are the
// layers' directory names (traces, observations.Dir, episodes.Dir; kb's
// tests hold them equal).
func (s ShareConfig) Local(root, projectRoot string) []string {
	var out []string
	inProject := filepath.Clean(root) != filepath.Clean(projectRoot)
	if s.Traces == ShareLocal || s.Traces == "" && inProject {
		out = append(out, "traces")
	}
	if s.Observations == ShareLocal {
		out = append(out, "observations")
	}
	if s.Episodes == ShareLocal {
		out = append(out, "episodes")
	}
	return out
}

func (s ShareConfig) validate() error {
	for k, v := range map[string]string{"traces": s.Traces, "observations": s.Observations, "episodes": s.Episodes} {
		if v != "" && v != ShareLocal && v != ShareShared {
			return fmt.Errorf("share.%s: want %q or %q, got %q", k, ShareLocal, ShareShared, v)
		}
	}
	return nil
}
