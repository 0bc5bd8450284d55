package kb

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kbmem/kb/observations"
	"github.com/kbmem/kb/traces"
)

// BenchmarkPromoteDryRun10k: kb promote --dry-run over 10,000 observation
// files (every type, most below threshold, a few hundred graduating).
func BenchmarkPromoteDryRun10k(b *testing.B) { benchPromote(b, 0) }

// BenchmarkPromoteDryRun10kLibrary1k: the same with 1,000 library notes
// that every graduating candidate is checked against (coverage).
func BenchmarkPromoteDryRun10kLibrary1k(b *testing.B) { benchPromote(b, 1000) }

func benchPromote(b *testing.B, notes int) {
	_, k := newProject(b)
	for i := range notes {
		write(b, k.Root, fmt.Sprintf("library/conventions/note-%04d.md", i), fmt.Sprintf(`---
id: note-%04d
type: convention
title: Convention %d for service %d
description: Always check the %d settings of module %d before a release.
triggers: ["x:b%d", "release %d"]
---

# Convention %d

Body text of convention %d: what to do, and why.
`, i, i, i%37, i, i%89, i%300, i, i, i))
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	types := []string{observations.TypeCorrection, observations.TypePreference, observations.TypeProcedure,
		observations.TypeDecision, observations.TypeNegativeResult, observations.TypeDiscovery, observations.TypeQuestion}
	for i := range 10000 {
		typ := types[i%len(types)]
		o := &observations.Observation{Type: typ, Title: fmt.Sprintf("observation %d about component %d", i, i%97),
			Status: observations.StatusCandidate, Lesson: fmt.Sprintf("Lesson %d for module %d.", i, i%89),
			Statement: fmt.Sprintf("Prefer option %d.", i), Steps: []string{"Edit *.go", fmt.Sprintf("Bash: make t%d", i)},
			Chosen: fmt.Sprintf("tool%d", i), Approach: fmt.Sprintf("approach %d", i), Failure: "still fails with a timeout",
			Claim: fmt.Sprintf("claim %d", i), Question: fmt.Sprintf("question %d?", i), Importance: 0.3,
			ActionType: fmt.Sprintf("x:a%d", i%500), FirstSeen: t0, LastSeen: t0}
		o.Sources = []observations.SourceRef{{Session: fmt.Sprintf("s%d", i%2000), From: 1, To: 2, Time: t0}}
		if i%50 == 0 { // every 50th recurs and graduates
			o.Sources = append(o.Sources, observations.SourceRef{Session: fmt.Sprintf("s%d", (i+1)%2000), From: 1, To: 2},
				observations.SourceRef{Session: fmt.Sprintf("s%d", (i+2)%2000), From: 1, To: 2})
			o.Accepts, o.Importance = 5, 0.9
		}
		o.Sessions = len(o.Sources)
		if _, _, err := k.SaveObservation(o, nil); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	var n int
	st := time.Now()
	if _, _, err := k.LoadObservations(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("load observations alone: %v", time.Since(st))
	for b.Loop() {
		st := time.Now()
		res, err := k.Promote(ctx, PromoteOptions{DryRun: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("promote --dry-run: %v", time.Since(st))
		n = len(res.Graduations)
	}
	b.ReportMetric(float64(n), "graduations")
}

// BenchmarkBuildEpisodes1000: kb episodes build over 1,000 sessions of
// 12 records each.
func BenchmarkBuildEpisodes1000(b *testing.B) {
	_, k := newProject(b)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	var recs []traces.Record
	for i := range 1000 {
		sid := fmt.Sprintf("sess-%04d", i)
		at := t0.Add(time.Duration(i) * 5 * time.Hour)
		add := func(r traces.Record) {
			at = at.Add(time.Minute)
			r.Session, r.Agent, r.Time, r.Cwd, r.Branch = sid, traces.AgentClaudeCode, at, "/r", fmt.Sprintf("feature-%d", i/4)
			recs = append(recs, r)
		}
		add(traces.Record{Role: traces.RoleUser, Kind: traces.KindMessage, Text: fmt.Sprintf("implement mod%d feature for #%d", i%60, i/4)})
		for j := range 5 {
			id := fmt.Sprintf("c%d", j)
			add(traces.Record{Role: traces.RoleAssistant, Kind: traces.KindToolCall, Tool: "Edit", CallID: id,
				Input: []byte(fmt.Sprintf(`{"file_path":"/r/pkg%d/f%d.go"}`, i%60, j))})
			add(traces.Record{Role: traces.RoleTool, Kind: traces.KindToolResult, CallID: id, Output: "ok"})
		}
		add(traces.Record{Role: traces.RoleAssistant, Kind: traces.KindMessage, Text: "Done."})
	}
	ctx := context.Background()
	if _, err := k.AppendTraces(ctx, recs, true); err != nil {
		b.Fatal(err)
	}
	var n int
	for b.Loop() {
		st := time.Now()
		rep, err := k.BuildEpisodes(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("episodes build: %v, %d written", time.Since(st), len(rep.Written))
		n = rep.Episodes
	}
	b.ReportMetric(float64(n), "episodes")
}
