package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CheckInstalled reports kb hook commands in an agent's settings file
// that can no longer run: an absolute path to a kb binary that is gone
// (moved, a Go cache cleaned, a reinstall elsewhere), or a bare "kb" that
// is not on PATH. An agent runs such a hook, fails and carries on without
// kb, silently; `kb doctor` says it here. A missing settings file is no
// problem; one that is not JSON is reported.
func CheckInstalled(agent, path string) []string {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", path, err)}
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return []string{fmt.Sprintf("%s: not JSON: %v", path, err)}
	}
	seen := map[string]bool{}
	var out []string
	for _, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				prog, ok := kbProgram(h.Command, agent)
				if !ok || seen[prog] {
					continue
				}
				seen[prog] = true
				if msg := runnable(prog); msg != "" {
					out = append(out, fmt.Sprintf("%s: kb's hook runs %s, which %s; run `kb hook install %s` again", path, prog, msg, agent))
				}
			}
		}
	}
	return out
}

// CheckAll is CheckInstalled over every agent's settings kb installs
// into: the project's (when projectRoot is set) and the user's. Each
// finding is the settings file and what is wrong with it.
func CheckAll(projectRoot string) (out [][2]string) {
	for _, d := range dialects {
		var paths []string
		if projectRoot != "" {
			if p, err := SettingsPath(d.Name, projectRoot, false); err == nil {
				paths = append(paths, p)
			}
		}
		if p, err := SettingsPath(d.Name, "", true); err == nil {
			paths = append(paths, p)
		}
		for _, p := range paths {
			for _, msg := range CheckInstalled(d.Name, p) {
				out = append(out, [2]string{p, strings.TrimPrefix(msg, p+": ")})
			}
		}
	}
	return out
}

// kbProgram is the program of a kb hook command for agent, unquoted.
// "kb hook AGENT" and "kb-hook AGENT" both.
func kbProgram(c, agent string) (string, bool) {
	f := strings.Fields(strings.TrimSpace(c))
	if len(f) < 2 || !isKBHook(c, agent, "") {
		return "", false
	}
	args := 1 // kb-hook AGENT
	if len(f) >= 3 && f[len(f)-2] == "hook" {
		args = 2 // kb hook AGENT
	}
	return strings.Trim(strings.Join(f[:len(f)-args], " "), `"'`), true
}

// runnable says why prog cannot run, or "".
func runnable(prog string) string {
	if strings.Contains(prog, "${") {
		return "" // a plugin's variable, resolved by the agent
	}
	if !filepath.IsAbs(prog) {
		if _, err := exec.LookPath(prog); err != nil {
			return "is not on PATH"
		}
		return ""
	}
	fi, err := os.Stat(prog)
	switch {
	case err != nil:
		return "no longer exists"
	case fi.IsDir() || fi.Mode()&0o111 == 0:
		return "is not an executable file"
	}
	return ""
}
