package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kbmem/kb/kb"
)

// The Claude Code and Codex plugin in plugin/ (marketplaces in
// .claude-plugin/marketplace.json and .agents/plugins/marketplace.json),
// checked against the formats of docs/agents.md ("Claude Code plugins",
// "Codex plugins"): the manifests name files that exist, and the hooks
// are those `kb hook install` writes (events, matcher, timeout), run
// through bin/kb-run.

type pluginHooks struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestPluginManifests(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	var cm struct {
		Name    string
		Owner   struct{ Name string }
		Plugins []struct{ Name, Source string }
	}
	readJSON(t, filepath.Join(repo, ".claude-plugin", "marketplace.json"), &cm)
	if cm.Name == "" || cm.Owner.Name == "" || len(cm.Plugins) != 1 {
		t.Fatalf("claude marketplace: %+v", cm)
	}
	var xm struct {
		Plugins []struct {
			Name   string
			Source struct{ Source, Path string }
		}
	}
	readJSON(t, filepath.Join(repo, ".agents", "plugins", "marketplace.json"), &xm)
	if len(xm.Plugins) != 1 || xm.Plugins[0].Source.Source != "local" || xm.Plugins[0].Source.Path != cm.Plugins[0].Source {
		t.Fatalf("codex marketplace: %+v", xm)
	}
	plugin := filepath.Join(repo, cm.Plugins[0].Source)
	for _, c := range []struct {
		manifest, agent, rootVar string
	}{
		{".claude-plugin/plugin.json", kb.AgentClaudeCode, "${CLAUDE_PLUGIN_ROOT}"},
		{".codex-plugin/plugin.json", kb.AgentCodex, "${PLUGIN_ROOT}"},
	} {
		var m struct{ Name, Hooks, MCPServers string }
		readJSON(t, filepath.Join(plugin, c.manifest), &m)
		if m.Name != cm.Plugins[0].Name || !strings.HasPrefix(m.Hooks, "./") || !strings.HasPrefix(m.MCPServers, "./") {
			t.Fatalf("%s: %+v", c.manifest, m)
		}
		var got pluginHooks
		readJSON(t, filepath.Join(plugin, m.Hooks), &got)
		var mcp struct {
			MCPServers map[string]struct {
				Command string
				Args    []string
			}
		}
		readJSON(t, filepath.Join(plugin, m.MCPServers), &mcp)
		if s := mcp.MCPServers["kb"]; !strings.HasSuffix(s.Command, "/bin/kb-run") || !reflect.DeepEqual(s.Args, []string{"mcp"}) {
			t.Errorf("%s: mcp server %+v", m.MCPServers, s)
		}
		// What kb hook install writes for the agent, with the plugin's
		// command in place of the binary's.
		var want pluginHooks
		res, err := kb.InstallHooks(kb.HookInstall{Agent: c.agent, Path: filepath.Join(t.TempDir(), "settings.json"), Command: `"` + c.rootVar + `/bin/kb-run" hook ` + c.agent})
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(res.Snippet, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: hooks\n%+v\nwant (as kb hook install writes them)\n%+v", m.Hooks, got, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(plugin, "bin", "kb-run")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("bin/kb-run: %v %v", fi, err)
	}
}

// TestPluginHooks runs the plugin's hook command as Claude Code and Codex
// do (the root variable substituted, through sh, event JSON on stdin) in a
// scratch project; see testdata/plugin/plugin.txtar.
func TestPluginHooks(t *testing.T) {
	plugin, _ := filepath.Abs("../../plugin")
	testscript.Run(t, testscript.Params{
		Dir: "testdata/plugin",
		Setup: func(env *testscript.Env) error {
			env.Setenv("KB_DIR", "")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("KB_HOOK_NO_DRAIN", "1")
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("PLUGIN", plugin)
			return nil
		},
		Cmds: scriptCmds(),
	})
}
