package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbmem/kb/kb"
)

// withIndex opens the KB and its index (synced with the files) for a read
// command.
func (e *env) withIndex(fn func(k *kb.KB, x *kb.Searcher) error) error {
	return e.withIndexLayers(nil, fn)
}

// withIndexLayers is withIndex syncing only the given layers (all when
// none): what the command reads.
func (e *env) withIndexLayers(layers []string, fn func(k *kb.KB, x *kb.Searcher) error) error {
	// A read command's heap is a few MB that live until it exits: at
	// the default GOGC the collector ran twice for nothing (a third of a
	// warm `kb search`'s CPU). The soft limit keeps a large KB's file list
	// from growing the heap 5x (peak RSS of a search at 100k files: 141 ->
	// 103 MB, same CPU). A large sync on the way sets both back for its
	// own duration (internal/index.Sync).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(48 << 20)
	}
	k, err := e.open()
	if err != nil {
		return err
	}
	x, _, err := k.OpenIndexToRead(context.Background(), layers, e.progress("indexing KiB"))
	if err != nil {
		return err
	}
	defer x.Close()
	return fn(k, x)
}

func newIndexCmd(e *env) *cobra.Command {
	var rebuild, background bool
	c := &cobra.Command{
		Use:   "index",
		Short: "Bring the search index up to date with the files",
		Long: `The index under .index/ is derived data. Every command that reads it first
re-indexes the files whose mtime or size changed, so running 'kb index' is
never required; use it to see what changed, or --rebuild to start over.`,
		Example: "  kb index\n  kb index --rebuild --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			ctx := context.Background()
			if background {
				// What a hook starts: its output goes to .state/indexer.log.
				st, ran, err := k.BackgroundIndex(ctx)
				if err != nil || !ran {
					return err
				}
				fmt.Fprintf(e.err, "%s kb index --background: %d files: %d added, %d updated, %d removed, %d docs\n",
					time.Now().UTC().Format(time.RFC3339), st.Scanned, st.Added, st.Updated, st.Removed, st.Docs)
				return nil
			}
			k.LoadEveryItem() // the hooks' index complete: no file read by a hook, no compile left to the watcher
			x, st, err := k.OpenIndex(ctx, e.progress("indexing KiB"))
			if err != nil {
				return err
			}
			defer x.Close()
			if rebuild {
				if st, err = x.Rebuild(ctx, e.progress("rebuilding KiB")); err != nil {
					return err
				}
			}
			if e.json {
				return e.emit(st)
			}
			for _, p := range st.Problems {
				fmt.Fprintln(e.err, e.paint("yellow", p.String()))
			}
			e.printf("%d files: %d added, %d updated, %d removed", st.Scanned, st.Added, st.Updated, st.Removed)
			if st.Rebuilt {
				e.printf(" (rebuilt: %s)", st.Reason)
			}
			e.printf("\n")
			return nil
		},
	}
	c.Flags().BoolVar(&rebuild, "rebuild", false, "drop the index and rebuild it from the files")
	c.Flags().BoolVar(&background, "background", false, "what a hook starts: sync the layers recall reads, unless another background indexer runs")
	_ = c.Flags().MarkHidden("background")
	return c
}

func newSearchCmd(e *env) *cobra.Command {
	var o kb.SearchOptions
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "Full-text search over the KB (bleve query syntax)",
		Long: `Ranked full-text search with English stemming; titles weigh most.
Query syntax: words (any may match), "exact phrases", +required, -excluded,
field:value (title, description, body, tags, type, layer, lifecycle, status,
trigger, lesson, action_type). Traces are searched only with --layer traces
(or --layer all): they are the raw record, not knowledge.`,
		Example: "  kb search \"drop column\"\n  kb search 'migration +type:adr'\n  kb search retry --layer library --tag network --json",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Query = strings.Join(args, " ")
			return e.withIndexLayers(o.ReadLayers(), func(k *kb.KB, x *kb.Searcher) error {
				res, err := x.Search(o)
				if err != nil {
					return err
				}
				if e.json {
					return e.emit(res)
				}
				if len(res.Hits) == 0 {
					e.printf("no results for %q\n", o.Query)
					return nil
				}
				for _, h := range res.Hits {
					label := h.ID
					if h.Session != "" {
						label = fmt.Sprintf("%s#%d", h.Session, h.Seq)
					}
					e.printf("%s %s %s\n", e.paint("bold", label), e.paint("dim", "["+h.Layer+kbTypeSuffix(h.Type)+"]"), h.Title)
					if h.Description != "" {
						e.printf("  %s\n", h.Description)
					}
					if h.Snippet != "" {
						e.printf("  %s\n", e.highlight(h.Snippet))
					}
					e.printf("  %s\n", e.paint("dim", h.Path))
				}
				if res.Total > uint64(len(res.Hits)) {
					e.printf("%s\n", e.paint("dim", fmt.Sprintf("%d of %d shown (--limit N for more)", len(res.Hits), res.Total)))
				}
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringSliceVar(&o.Layers, "layer", nil, "only these layers: traces, observations, episodes, library, all")
	f.StringSliceVar(&o.Types, "type", nil, "only these document types (adr, convention, correction, ...)")
	f.StringSliceVar(&o.Tags, "tag", nil, "only documents with this tag")
	f.IntVar(&o.Limit, "limit", 10, "maximum number of hits")
	c.RegisterFlagCompletionFunc("layer", cobra.FixedCompletions([]string{"traces", "observations", "episodes", "library", "all"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func kbTypeSuffix(t string) string {
	if t == "" {
		return ""
	}
	return "/" + t
}

// highlight renders the index's snippet, whose matched words are wrapped in
// markdown bold (**word**), as terminal bold when color is on; otherwise the
// markdown stays, which agents and pipes read as emphasis.
func (e *env) highlight(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if !e.color() {
		return s
	}
	parts := strings.Split(s, kb.SnippetMark)
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("\x1b[1;33m" + p + "\x1b[0m")
		} else {
			if i%2 == 1 {
				b.WriteString(kb.SnippetMark)
			}
			b.WriteString(p)
		}
	}
	return b.String()
}

func newShowCmd(e *env) *cobra.Command {
	var provenance bool
	c := &cobra.Command{
		Use:   "show ID|PATH",
		Short: "Show a document: frontmatter, body, links and backlinks",
		Long: `Show a document of any layer with its links and backlinks. For an
observation, --provenance prints the trace records it was extracted from
instead (the same as 'kb provenance ID').`,
		Example:           "  kb show adr-0001-use-bleve\n  kb show library/conventions/stage-files.md --json\n  kb show cor-1a2b3c4d5e --provenance",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: e.completeIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if provenance {
				return e.runProvenance(args[0])
			}
			return e.withIndex(func(k *kb.KB, x *kb.Searcher) error {
				n, err := x.Show(args[0])
				if err != nil {
					return err
				}
				if e.json {
					return e.emit(n)
				}
				e.printf("%s %s\n", e.paint("bold", n.ID), e.paint("dim", n.Path))
				if n.Title != "" {
					e.printf("%s\n", e.paint("cyan", n.Title))
				}
				if n.Description != "" {
					e.printf("%s\n", n.Description)
				}
				e.printf("\n%s\n", strings.TrimSpace(n.Body))
				e.printLinks("Links", n.Links, false)
				e.printLinks("Backlinks", n.Backlinks, true)
				return nil
			})
		},
	}
	c.Flags().BoolVar(&provenance, "provenance", false, "for an observation: print the trace records it came from")
	return c
}

// printLinks prints one line per linked note: a note linked twice (a
// frontmatter relation and a wikilink in the body) is one line saying
// both ways. --json keeps every edge.
func (e *env) printLinks(title string, refs []kb.LinkRef, back bool) {
	type line struct {
		name, to string
		how      []string
	}
	var lines []*line
	byKey := map[string]*line{}
	for _, r := range refs {
		key, name, to := r.To, r.Target, r.To
		switch {
		case back:
			key, name, to = r.From, fmt.Sprintf("%s:%d", r.From, r.Line), ""
		case r.To == "":
			key = "?" + r.Target
		}
		l := byKey[key]
		if l == nil {
			l = &line{name: name, to: to}
			byKey[key] = l
			lines = append(lines, l)
		}
		how := r.Rel
		if how == "" {
			how = r.Kind
		}
		if r.Line > 0 && !back {
			how += fmt.Sprintf(" line %d", r.Line)
		}
		if how != "" {
			l.how = append(l.how, how)
		}
	}
	e.printf("\n%s (%d)\n", e.paint("bold", title), len(lines))
	for _, l := range lines {
		how := ""
		if len(l.how) > 0 {
			how = " " + e.paint("dim", "("+strings.Join(l.how, "; ")+")")
		}
		switch {
		case back:
			e.printf("  %s%s\n", l.name, how)
		case l.to == "":
			e.printf("  %s %s%s\n", l.name, e.paint("red", "(unresolved)"), how)
		default:
			e.printf("  %s %s%s\n", l.name, e.paint("dim", "-> "+l.to), how)
		}
	}
}

func newLinksCmd(e *env, back bool) *cobra.Command {
	use, short := "links ID", "List what a document links to"
	if back {
		use, short = "backlinks ID", "List the documents that link to a document"
	}
	return &cobra.Command{
		Use:               use,
		Short:             short,
		Example:           "  kb " + strings.Fields(use)[0] + " adr-0001-use-bleve --json",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: e.completeIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withIndex(func(k *kb.KB, x *kb.Searcher) error {
				refs, err := x.Links(args[0], back)
				if err != nil {
					return err
				}
				if e.json {
					return e.emit(refs)
				}
				title := "Links"
				if back {
					title = "Backlinks"
				}
				e.printLinks(title, refs, back)
				return nil
			})
		},
	}
}

func newGraphCmd(e *env) *cobra.Command {
	var format, from string
	var depth int
	c := &cobra.Command{
		Use:     "graph",
		Short:   "Print the link graph as DOT, Mermaid or JSON",
		Example: "  kb graph --format mermaid --from adr-0001-use-bleve --depth 2\n  kb graph --format dot | dot -Tsvg > graph.svg",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if e.json {
				format = "json"
			}
			return e.withIndex(func(k *kb.KB, x *kb.Searcher) error {
				return x.WriteGraph(e.out, format, from, depth)
			})
		},
	}
	c.Flags().StringVar(&format, "format", "dot", "dot, mermaid or json")
	c.Flags().StringVar(&from, "from", "", "start from this document (id, path or title)")
	c.Flags().IntVar(&depth, "depth", 1, "with --from: how many hops to follow")
	c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"dot", "mermaid", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func newLintCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "lint",
		Short: "Check every document: frontmatter, required fields, duplicate ids, broken links",
		Long: `Check every document of the KB and print each problem as path:line: message.
Exits 1 when anything is found.`,
		Example: "  kb lint\n  kb lint --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := e.open()
			if err != nil {
				return err
			}
			res, err := k.Lint(context.Background())
			if err != nil {
				return err
			}
			if e.json {
				if err := e.emit(res); err != nil {
					return err
				}
			} else {
				for _, p := range res.Problems {
					e.printf("%s\n", p.String())
				}
				if len(res.Problems) == 0 {
					e.printf("%s %d files, no problems\n", e.paint("green", "ok"), res.Files)
				} else {
					fmt.Fprintf(e.err, "%d problem(s) in %d files\n", len(res.Problems), res.Files)
				}
			}
			if len(res.Problems) > 0 {
				return findingsError{len(res.Problems)}
			}
			return nil
		},
	}
}

// completeIDs completes document ids for shell completion.
func (e *env) completeIDs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	_ = e.withIndex(func(k *kb.KB, x *kb.Searcher) error {
		ids, err := x.IDs(toComplete, 200)
		out = ids
		return err
	})
	return out, cobra.ShellCompDirectiveNoFileComp
}
