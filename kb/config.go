package kb

import (
	"strings"

	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/recall"
)

// kb.yaml's schema, defaults, parsing and validation are internal/config's;
// kb reads the file (Open) and hands each room its section. The names below
// are the package's, under the names kb has always shown.
type (
	Config           = config.Config
	TracesConfig     = config.TracesConfig
	RedactRule       = config.RedactRule
	ExtractConfig    = config.ExtractConfig
	ActionTypeRule   = config.ActionTypeRule
	RecallConfig     = config.RecallConfig
	PromoteConfig    = config.PromoteConfig
	LearnConfig      = config.LearnConfig
	LockConfig       = config.LockConfig
	WatchConfig      = config.WatchConfig
	LLMConfig        = config.LLMConfig
	EmbeddingsConfig = config.EmbeddingsConfig
	ShareConfig      = config.ShareConfig
	Duration         = config.Duration
	// ConfigError is a kb.yaml problem with its line.
	ConfigError = config.Error
)

// Sharing: what the KB commits for the team and what stays on this
// machine (kb.yaml share:).
const (
	ShareLocal  = config.ShareLocal
	ShareShared = config.ShareShared
)

// DefaultConfigYAML is written by `kb init`: every setting with its default,
// commented (templates/kb.yaml).
var DefaultConfigYAML = config.DefaultConfigYAML

// ParseConfig parses kb.yaml on top of the defaults: keys that are absent
// keep their default; unknown keys are errors.
func ParseConfig(b []byte) (Config, error) {
	c, err := config.ParseConfig(b)
	if err != nil {
		return c, err
	}
	// The one section whose check is another room's: recall parses its
	// lexicon lines. Only when there are some: building the default
	// lexicon compiles its patterns (10 ms of CPU, a tenth of a `kb
	// search` process), and every command reads kb.yaml.
	if len(c.Recall.Equivalents) == 0 {
		return c, nil
	}
	if _, err := recall.DefaultLexicon().Extend(strings.Join(c.Recall.Equivalents, "\n")); err != nil {
		return c, &ConfigError{Msg: "recall.equivalents: " + err.Error()}
	}
	return c, nil
}
