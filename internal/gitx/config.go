package gitx

import "fmt"

// ConfigOption returns the value of key in [section "subsection"] of the
// repository's own config (.git/config), "" when unset.
func (r *Repo) ConfigOption(section, subsection, key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	cfg, err := r.repo.Config()
	if err != nil {
		return ""
	}
	s := cfg.Raw.Section(section)
	if subsection != "" {
		return s.Subsection(subsection).Option(key)
	}
	return s.Option(key)
}

// SetConfigOptions sets keys of [section "subsection"] in the repository's
// own config, with go-git (no git binary), and reports whether anything
// changed.
func (r *Repo) SetConfigOptions(section, subsection string, kv ...[2]string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cfg, err := r.repo.Config()
	if err != nil {
		return false, fmt.Errorf("read git config: %w", err)
	}
	changed := false
	s := cfg.Raw.Section(section)
	for _, p := range kv {
		cur := s.Option(p[0])
		if subsection != "" {
			cur = s.Subsection(subsection).Option(p[0])
		}
		if cur == p[1] {
			continue
		}
		changed = true
		if subsection != "" {
			s.Subsection(subsection).SetOption(p[0], p[1])
		} else {
			s.SetOption(p[0], p[1])
		}
	}
	if !changed {
		return false, nil
	}
	if err := r.repo.SetConfig(cfg); err != nil {
		return false, fmt.Errorf("write git config: %w", err)
	}
	return true, nil
}
