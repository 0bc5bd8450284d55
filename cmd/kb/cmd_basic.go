package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/kb"
)

// Version is set at build time with -ldflags "-X main.Version=v1.2.3".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print kb's version",
		Example: "  kb version\n  kb version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := map[string]string{"version": version(), "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH, "index_schema": kb.IndexSchema()}
			if e.json {
				return e.emit(v)
			}
			e.printf("kb %s (%s %s/%s, index schema %s)\n", v["version"], v["go"], v["os"], v["arch"], v["index_schema"])
			return nil
		},
	}
}

func newInitCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a KB: kb.yaml and the four layer directories",
		Long: `Create a KB. Inside a git work tree, 'kb init' puts it at <repo top>/.kb;
'kb init DIR' makes DIR the root of a standalone memory repo (git-initialized
with go-git if it is not inside one). Existing files are kept: init is safe to
re-run.`,
		Example: "  kb init            # .kb/ at the top of this git repo\n  kb init ~/memory   # a standalone memory repo",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			res, err := kb.Init(dir)
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(res)
			}
			if res.Existed && len(res.Created) == 0 {
				e.printf("KB already initialized at %s\n", res.Root)
				return nil
			}
			e.printf("%s KB at %s\n", e.paint("green", "Initialized"), res.Root)
			if res.GitInit {
				e.printf("  git repository created\n")
			}
			if len(res.Created) > 0 {
				e.printf("  created %s\n", strings.Join(res.Created, " "))
			}
			return nil
		},
	}
}

func newNewCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "new TYPE TITLE",
		Short: "Create a library note from its template",
		Long: `Create a library note of TYPE (note, adr, procedure, convention, preference)
from its embedded template, with a unique id and a file name slug. A KB can
override a template by putting TYPE.md in <root>/templates/.`,
		Example:   "  kb new adr \"Use bleve for search\"\n  kb new convention \"Stage files by name\" --json",
		Args:      cobra.MinimumNArgs(2),
		ValidArgs: kb.NoteTypes(),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			n, err := k.New(context.Background(), args[0], strings.Join(args[1:], " "))
			if err != nil {
				return err
			}
			if e.json {
				return e.emit(n)
			}
			e.printf("%s %s\n", e.paint("green", "Created"), n.Path)
			return nil
		},
	}
}
