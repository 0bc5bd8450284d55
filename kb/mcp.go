package kb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kbmem/kb/observations"
)

// MCP tool inputs and outputs. Field names are the JSON the agent sees.
type (
	MCPSearchIn struct {
		Query  string   `json:"query" jsonschema:"words, \"phrases\", +required, -excluded, field:value (bleve query syntax)"`
		Layers []string `json:"layers,omitempty" jsonschema:"layers to search: observations, episodes, library, traces (default: all but traces)"`
		Types  []string `json:"types,omitempty" jsonschema:"document types to keep, e.g. correction, adr, convention"`
		Limit  int      `json:"limit,omitempty" jsonschema:"maximum hits (default 10)"`
	}
	MCPRecallIn struct {
		Task   string         `json:"task,omitempty" jsonschema:"what you are asked to do, in words"`
		Action string         `json:"action,omitempty" jsonschema:"a shell command you are about to run"`
		Tool   string         `json:"tool,omitempty" jsonschema:"a tool you are about to call (Bash, Edit, Write...)"`
		Input  map[string]any `json:"input,omitempty" jsonschema:"that tool call's input object"`
		Files  []string       `json:"files,omitempty" jsonschema:"files the work touches"`
		Budget int            `json:"budget,omitempty" jsonschema:"context budget in tokens (default recall.budget)"`
		// Project scopes a standalone KB to the project being worked on.
		Project string `json:"project,omitempty" jsonschema:"the project directory you work in (your cwd): a KB shared by many projects then leaves out one-off lessons of the others"`
	}
	MCPRecallOut struct {
		Markdown string       `json:"markdown"`
		Items    []RecallItem `json:"items"`
	}
	MCPShowIn struct {
		ID string `json:"id" jsonschema:"a note or observation id, path, file name or title"`
	}
	MCPLinksIn struct {
		ID   string `json:"id" jsonschema:"a note or observation id, path, file name or title"`
		Back bool   `json:"back,omitempty" jsonschema:"return backlinks (documents linking here) instead of forward links"`
	}
	MCPLinksOut struct {
		Links []LinkRef `json:"links"`
	}
	MCPWhyIn struct {
		Topic string `json:"topic" jsonschema:"what the decision or failed attempt was about"`
		Limit int    `json:"limit,omitempty" jsonschema:"maximum hits (default 10)"`
	}
	MCPRememberIn struct {
		Type        string   `json:"type" jsonschema:"correction, preference, procedure, decision, negative-result, discovery or question"`
		Text        string   `json:"text" jsonschema:"the lesson, preference, steps (one per line), decision, failed approach, fact or question"`
		Trigger     string   `json:"trigger,omitempty" jsonschema:"correction: when it applies (e.g. 'dropping a database column')"`
		ActionTypes []string `json:"action_types,omitempty" jsonschema:"action types it applies to (domain:verb); classified from trigger and text when empty"`
		Why         string   `json:"why,omitempty" jsonschema:"consequence, failure or reasons"`
	}
	MCPRememberOut struct {
		ID      string `json:"id"`
		Path    string `json:"path"`
		Created bool   `json:"created"`
	}
)

// NewMCPServer returns an MCP server exposing the KB: search, recall, show,
// links, why and remember. Each call opens the index (read-only when it is
// up to date) and closes it again, so a long-running server never keeps
// other kb processes waiting.
func NewMCPServer(k *KB, version string) *mcp.Server {
	if version == "" {
		version = "dev"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "kb", Title: "kb memory", Version: version}, nil)
	args := map[string]toolArgs{}
	s.AddReceivingMiddleware(checkArguments(args))
	withIndex := func(ctx context.Context, fn func(x *Index) error) error {
		x, err := k.openRecallIndex(ctx)
		if err != nil {
			return err
		}
		defer x.Close()
		return fn(x)
	}
	addTool(s, args, &mcp.Tool{Name: "search", Description: "Full-text search over the knowledge base (observations, episodes, library; traces on request). Returns ranked hits with ids for show."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in MCPSearchIn) (*mcp.CallToolResult, *SearchResult, error) {
			if in.Limit < 0 {
				return nil, nil, fmt.Errorf("%w: search: limit must be 0 (the default, 10) or more, got %d", ErrInvalidInput, in.Limit)
			}
			var res *SearchResult
			err := withIndex(ctx, func(x *Index) error {
				var err error
				res, err = x.Search(SearchOptions{Query: in.Query, Layers: in.Layers, Types: in.Types, Limit: in.Limit})
				return err
			})
			return nil, res, err
		})
	addTool(s, args, &mcp.Tool{Name: "recall", Description: "Lessons from earlier sessions that apply to a task or to an action you are about to take: corrections, preferences, procedures, precedents, conventions. Call it before risky or unfamiliar steps."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in MCPRecallIn) (*mcp.CallToolResult, *MCPRecallOut, error) {
			if in.Task == "" && in.Action == "" && in.Tool == "" && len(in.Files) == 0 {
				return nil, nil, fmt.Errorf("%w: give a task, an action, a tool call or files", ErrInvalidInput)
			}
			if in.Budget < 0 {
				return nil, nil, fmt.Errorf("%w: recall: budget must be 0 (the default, recall.budget) or more tokens, got %d", ErrInvalidInput, in.Budget)
			}
			var input json.RawMessage
			if in.Input != nil {
				input, _ = json.Marshal(in.Input)
			}
			var res *RecallResult
			err := withIndex(ctx, func(x *Index) error {
				var err error
				res, err = x.Recall(ctx, RecallQuery{Task: in.Task, Action: in.Action, Tool: in.Tool, Input: input, Files: in.Files, Budget: in.Budget,
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
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, &MCPRecallOut{Markdown: md, Items: res.Items}, nil
		})
	addTool(s, args, &mcp.Tool{Name: "show", Description: "Read one note or observation by id (as recall and search return them), with its links and backlinks."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in MCPShowIn) (*mcp.CallToolResult, *Note, error) {
			var n *Note
			err := withIndex(ctx, func(x *Index) error {
				var err error
				n, err = x.Show(in.ID)
				return err
			})
			return nil, n, err
		})
	addTool(s, args, &mcp.Tool{Name: "links", Description: "The links of a note (or, with back, the notes linking to it)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in MCPLinksIn) (*mcp.CallToolResult, *MCPLinksOut, error) {
			out := &MCPLinksOut{Links: []LinkRef{}}
			err := withIndex(ctx, func(x *Index) error {
				l, err := x.Links(in.ID, in.Back)
				if l != nil {
					out.Links = l
				}
				return err
			})
			return nil, out, err
		})
	addTool(s, args, &mcp.Tool{Name: "why", Description: "Why things are the way they are: decisions (and ADRs) and failed attempts (negative results) about a topic."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in MCPWhyIn) (*mcp.CallToolResult, *SearchResult, error) {
			if strings.TrimSpace(in.Topic) == "" {
				return nil, nil, fmt.Errorf("%w: give a topic", ErrInvalidInput)
			}
			if in.Limit < 0 {
				return nil, nil, fmt.Errorf("%w: why: limit must be 0 (the default, 10) or more, got %d", ErrInvalidInput, in.Limit)
			}
			var res *SearchResult
			err := withIndex(ctx, func(x *Index) error {
				var err error
				res, err = x.Search(SearchOptions{Query: plainQuery(in.Topic), Layers: []string{LayerObservations, LayerLibrary, LayerEpisodes},
					Types: []string{observations.TypeDecision, observations.TypeNegativeResult, "adr"}, Limit: in.Limit})
				return err
			})
			return nil, res, err
		})
	addTool(s, args, &mcp.Tool{Name: "remember", Description: "Record something explicitly as an observation (a correction to follow, a preference, a procedure, a decision, a failed approach, a fact, an open question). It is kept as the agent's note, labelled so when recalled; it counts as the person's knowledge only after a person reviews it (kb review)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in MCPRememberIn) (*mcp.CallToolResult, *MCPRememberOut, error) {
			out, err := k.Remember(ctx, in)
			return nil, out, err
		})
	return s
}

// plainQuery turns free words into a query without syntax: every word
// optional, no operators.
func plainQuery(s string) string { return strings.Join(cueWords(s), " ") }

// Remember records an explicit observation (source "mcp") under the write
// lock, as the agent's words (author agent, origin mcp-remember): recalled
// as "The agent noted (unreviewed)", never promoted, learned, standing or
// deciding until a person reviews it (Review). Remembering the same thing
// twice updates the first observation.
func (k *KB) Remember(ctx context.Context, in MCPRememberIn) (*MCPRememberOut, error) {
	text := strings.TrimSpace(in.Text)
	if text == "" {
		return nil, fmt.Errorf("%w: remember needs a text", ErrInvalidInput)
	}
	now := time.Now().UTC().Truncate(time.Second)
	// The agent's words, not the person's: kept with that provenance and
	// recalled as the agent's note until a person reviews it (kb review).
	o := &observations.Observation{Type: in.Type, Title: truncate(rcOneLine(text), 80), Confidence: 0.5, Importance: 0.7,
		Status: observations.StatusCandidate, Lifecycle: observations.LifecycleOf(in.Type),
		Author: observations.AuthorAgent, Origin: observations.OriginMCPRemember,
		Sources: []observations.SourceRef{{Session: "mcp", Time: now}}, Sessions: 1, FirstSeen: now, LastSeen: now}
	why := strings.TrimSpace(in.Why)
	switch in.Type {
	case observations.TypeCorrection:
		o.Lesson, o.Trigger, o.Consequence = text, strings.TrimSpace(in.Trigger), why
		o.ActionTypes = in.ActionTypes
		if len(o.ActionTypes) == 0 {
			tax, err := k.cueTaxonomy()
			if err != nil {
				return nil, err
			}
			o.ActionTypes = tax.ClassifyText(o.Trigger + "\n" + text)
		}
		for _, t := range o.ActionTypes {
			if !actionTypeRE.MatchString(t) {
				return nil, fmt.Errorf("%w: action type %q is not domain:verb", ErrInvalidInput, t)
			}
		}
		if len(o.ActionTypes) > 0 {
			o.ActionType = o.ActionTypes[0]
		}
	case observations.TypePreference:
		o.Statement = text
	case observations.TypeProcedure:
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*0123456789.)")); l != "" {
				o.Steps = append(o.Steps, l)
			}
		}
		if len(o.Steps) == 0 {
			o.Steps = []string{text}
		}
		o.Goal = truncate(o.Steps[0], 100)
		if t := strings.TrimSpace(in.Trigger); t != "" {
			o.Goal = t
		}
	case observations.TypeDecision:
		o.Chosen = text
		if why != "" {
			o.Reasons = []string{why}
		}
	case observations.TypeNegativeResult:
		o.Approach, o.Failure = text, why
	case observations.TypeDiscovery:
		o.Claim = text
	case observations.TypeQuestion:
		o.Question = text
	default:
		return nil, fmt.Errorf("%w: unknown observation type %q (one of %s)", ErrInvalidInput, in.Type, strings.Join(observations.AllTypes, ", "))
	}
	o.ID = o.MakeID()
	l, err := k.LockObservations(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	files, _, err := k.LoadObservations(ctx)
	if err != nil {
		return nil, err
	}
	var existing *ObsFile
	for _, f := range files {
		if f.Obs.ID == o.ID {
			existing = f
			break
		}
	}
	if existing != nil {
		observations.Merge(existing.Obs, o)
		rel, _, err := k.SaveObservation(existing.Obs, existing)
		if err != nil {
			return nil, err
		}
		return &MCPRememberOut{ID: existing.Obs.ID, Path: rel}, nil
	}
	rel, _, err := k.SaveObservation(o, nil)
	if err != nil {
		return nil, err
	}
	return &MCPRememberOut{ID: o.ID, Path: rel, Created: true}, nil
}

// ServeMCP runs the MCP server on t until the client disconnects or ctx
// ends. With t nil it serves stdin and stdout, answering a line that is not
// a JSON-RPC message with a JSON-RPC error and reading on (mcpwire.go).
func ServeMCP(ctx context.Context, k *KB, version string, t mcp.Transport) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if t == nil {
		t = stdioTransport(os.Stdin, os.Stdout)
	}
	err := NewMCPServer(k, version).Run(ctx, t)
	if err != nil && (errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "EOF")) {
		return nil
	}
	return err
}
