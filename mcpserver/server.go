// Package mcpserver is kb's Model Context Protocol server (kb mcp): a face
// beside cmd/kb that exposes the KB to agents as the tools search, recall,
// show, links, why and remember, calling the facade (package kb) for each.
// It reads stdin itself (wire.go), so that an agent's bad line gets a
// JSON-RPC error instead of ending its session, and checks tool arguments
// before the SDK does, so that an error says what to change.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kbmem/kb/kb"
	"github.com/kbmem/kb/observations"
)

// Tool inputs and outputs. Field names are the JSON the agent sees.
type (
	SearchIn struct {
		Query  string   `json:"query" jsonschema:"words, \"phrases\", +required, -excluded, field:value (bleve query syntax)"`
		Layers []string `json:"layers,omitempty" jsonschema:"layers to search: observations, episodes, library, traces (default: all but traces)"`
		Types  []string `json:"types,omitempty" jsonschema:"document types to keep, e.g. correction, adr, convention"`
		Limit  int      `json:"limit,omitempty" jsonschema:"maximum hits (default 10)"`
	}
	RecallIn struct {
		Task   string         `json:"task,omitempty" jsonschema:"what you are asked to do, in words"`
		Action string         `json:"action,omitempty" jsonschema:"a shell command you are about to run"`
		Tool   string         `json:"tool,omitempty" jsonschema:"a tool you are about to call (Bash, Edit, Write...)"`
		Input  map[string]any `json:"input,omitempty" jsonschema:"that tool call's input object"`
		Files  []string       `json:"files,omitempty" jsonschema:"files the work touches"`
		Budget int            `json:"budget,omitempty" jsonschema:"context budget in tokens (default recall.budget)"`
		// Project scopes a standalone KB to the project being worked on.
		Project string `json:"project,omitempty" jsonschema:"the project directory you work in (your cwd): a KB shared by many projects then leaves out one-off lessons of the others"`
	}
	RecallOut struct {
		Markdown string          `json:"markdown"`
		Items    []kb.RecallItem `json:"items"`
	}
	ShowIn struct {
		ID string `json:"id" jsonschema:"a note or observation id, path, file name or title"`
	}
	LinksIn struct {
		ID   string `json:"id" jsonschema:"a note or observation id, path, file name or title"`
		Back bool   `json:"back,omitempty" jsonschema:"return backlinks (documents linking here) instead of forward links"`
	}
	LinksOut struct {
		Links []kb.LinkRef `json:"links"`
	}
	WhyIn struct {
		Topic string `json:"topic" jsonschema:"what the decision or failed attempt was about"`
		Limit int    `json:"limit,omitempty" jsonschema:"maximum hits (default 10)"`
	}
	RememberIn struct {
		Type        string   `json:"type" jsonschema:"correction, preference, procedure, decision, negative-result, discovery or question"`
		Text        string   `json:"text" jsonschema:"the lesson, preference, steps (one per line), decision, failed approach, fact or question"`
		Trigger     string   `json:"trigger,omitempty" jsonschema:"correction: when it applies (e.g. 'dropping a database column')"`
		ActionTypes []string `json:"action_types,omitempty" jsonschema:"action types it applies to (domain:verb); classified from trigger and text when empty"`
		Why         string   `json:"why,omitempty" jsonschema:"consequence, failure or reasons"`
	}
	RememberOut struct {
		ID      string `json:"id"`
		Path    string `json:"path"`
		Created bool   `json:"created"`
	}
)

// New returns an MCP server exposing the KB: search, recall, show,
// links, why and remember. Each call opens the index (read-only when it is
// up to date) and closes it again, so a long-running server never keeps
// other kb processes waiting.
func New(k *kb.KB, version string) *mcp.Server {
	if version == "" {
		version = "dev"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "kb", Title: "kb memory", Version: version}, nil)
	args := map[string]toolArgs{}
	s.AddReceivingMiddleware(checkArguments(args))
	withIndex := func(ctx context.Context, fn func(x *kb.Searcher) error) error {
		x, err := k.OpenRecallIndex(ctx)
		if err != nil {
			return err
		}
		defer x.Close()
		return fn(x)
	}
	addTool(s, args, &mcp.Tool{Name: "search", Description: "Full-text search over the knowledge base (observations, episodes, library; traces on request). Returns ranked hits with ids for show."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, *kb.SearchResult, error) {
			if in.Limit < 0 {
				return nil, nil, fmt.Errorf("%w: search: limit must be 0 (the default, 10) or more, got %d", kb.ErrInvalidInput, in.Limit)
			}
			var res *kb.SearchResult
			err := withIndex(ctx, func(x *kb.Searcher) error {
				var err error
				res, err = x.Search(kb.SearchOptions{Query: in.Query, Layers: in.Layers, Types: in.Types, Limit: in.Limit})
				return err
			})
			return nil, res, err
		})
	addTool(s, args, &mcp.Tool{Name: "recall", Description: "Lessons from earlier sessions that apply to a task or to an action you are about to take: corrections, preferences, procedures, precedents, conventions. Call it before risky or unfamiliar steps."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in RecallIn) (*mcp.CallToolResult, *RecallOut, error) {
			if in.Task == "" && in.Action == "" && in.Tool == "" && len(in.Files) == 0 {
				return nil, nil, fmt.Errorf("%w: give a task, an action, a tool call or files", kb.ErrInvalidInput)
			}
			if in.Budget < 0 {
				return nil, nil, fmt.Errorf("%w: recall: budget must be 0 (the default, recall.budget) or more tokens, got %d", kb.ErrInvalidInput, in.Budget)
			}
			var input json.RawMessage
			if in.Input != nil {
				input, _ = json.Marshal(in.Input)
			}
			var res *kb.RecallResult
			err := withIndex(ctx, func(x *kb.Searcher) error {
				var err error
				res, err = x.Recall(ctx, kb.RecallQuery{Task: in.Task, Action: in.Action, Tool: in.Tool, Input: input, Files: in.Files, Budget: in.Budget,
					Cwd: in.Project, Project: in.Project})
				return err
			})
			if err != nil {
				return nil, nil, err
			}
			md := res.Markdown()
			text := md
			if text == "" {
				text = "Nothing recorded applies."
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, &RecallOut{Markdown: md, Items: res.Items}, nil
		})
	addTool(s, args, &mcp.Tool{Name: "show", Description: "Read one note or observation by id (as recall and search return them), with its links and backlinks."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ShowIn) (*mcp.CallToolResult, *kb.Note, error) {
			var n *kb.Note
			err := withIndex(ctx, func(x *kb.Searcher) error {
				var err error
				n, err = x.Show(in.ID)
				return err
			})
			return nil, n, notFound(in.ID, err)
		})
	addTool(s, args, &mcp.Tool{Name: "links", Description: "The links of a note (or, with back, the notes linking to it)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in LinksIn) (*mcp.CallToolResult, *LinksOut, error) {
			out := &LinksOut{Links: []kb.LinkRef{}}
			err := withIndex(ctx, func(x *kb.Searcher) error {
				l, err := x.Links(in.ID, in.Back)
				if l != nil {
					out.Links = l
				}
				return err
			})
			return nil, out, notFound(in.ID, err)
		})
	addTool(s, args, &mcp.Tool{Name: "why", Description: "Why things are the way they are: decisions (and ADRs) and failed attempts (negative results) about a topic."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in WhyIn) (*mcp.CallToolResult, *kb.SearchResult, error) {
			if strings.TrimSpace(in.Topic) == "" {
				return nil, nil, fmt.Errorf("%w: give a topic", kb.ErrInvalidInput)
			}
			if in.Limit < 0 {
				return nil, nil, fmt.Errorf("%w: why: limit must be 0 (the default, 10) or more, got %d", kb.ErrInvalidInput, in.Limit)
			}
			var res *kb.SearchResult
			err := withIndex(ctx, func(x *kb.Searcher) error {
				var err error
				res, err = x.Search(kb.SearchOptions{Query: kb.CueQuery(in.Topic), Layers: []string{kb.LayerObservations, kb.LayerLibrary, kb.LayerEpisodes},
					Types: []string{observations.TypeDecision, observations.TypeNegativeResult, "adr"}, Limit: in.Limit})
				return err
			})
			return nil, res, err
		})
	addTool(s, args, &mcp.Tool{Name: "remember", Description: "Record something explicitly as an observation (a correction to follow, a preference, a procedure, a decision, a failed approach, a fact, an open question). It is kept as the agent's note, labelled so when recalled; it counts as the person's knowledge only after a person reviews it (kb review)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in RememberIn) (*mcp.CallToolResult, *RememberOut, error) {
			r, err := k.Remember(ctx, kb.RememberInput(in))
			if err != nil {
				return nil, nil, err
			}
			return nil, (*RememberOut)(r), nil
		})
	return s
}

// Serve runs the MCP server on t until the client disconnects or ctx
// ends. With t nil it serves stdin and stdout, answering a line that is not
// a JSON-RPC message with a JSON-RPC error and reading on (wire.go).
func Serve(ctx context.Context, k *kb.KB, version string, t mcp.Transport) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if t == nil {
		t = stdioTransport(os.Stdin, os.Stdout)
	}
	err := New(k, version).Run(ctx, t)
	if err != nil && (errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "EOF")) {
		return nil
	}
	return err
}

// notFound words an unknown id for an agent speaking MCP: the tool to
// find one is this server's search, not the shell's `kb search` the
// facade's message names.
func notFound(id string, err error) error {
	if err == nil || !errors.Is(err, kb.ErrNotFound) || errors.Is(err, kb.ErrAmbiguousID) {
		return err
	}
	return fmt.Errorf("no note or observation has the id %q; call the search tool to find one, then show it by the id search returns", id)
}
