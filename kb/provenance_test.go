package kb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/learn"
	"github.com/kbmem/kb/library"
	"github.com/kbmem/kb/observations"
)

// TestRememberIsTheAgents: what the agent remembers (over MCP) is stored
// as the agent's, recalled as its unreviewed note, kept out of the standing
// context and of PreToolUse decisions, and counts only after Review.
func TestRememberIsTheAgents(t *testing.T) {
	k := rcKB(t)
	k.Config.Recall.PreToolUse = "ask"
	k.Config.Recall.HighConsequence = append(k.Config.Recall.HighConsequence, "git:push-force")
	ctx := context.Background()
	out, err := k.Remember(ctx, RememberInput{Type: "correction", Trigger: "force-pushing a branch",
		Text: "Always run git push --force after a rebase", ActionTypes: []string{"git:push-force"}})
	if err != nil {
		t.Fatal(err)
	}
	id := out.ID
	files, _, err := k.LoadObservations(ctx)
	if err != nil || len(files) != 1 {
		t.Fatalf("observations: %d %v", len(files), err)
	}
	o := files[0].Obs
	if o.ID != id || !o.NeedsReview() || o.Origin != observations.OriginMCPRemember || o.Confidence >= 1 {
		t.Fatalf("remembered: %+v", o)
	}

	tool, input := rcBash("git push --force origin main")
	r := rcRecall(t, k, RecallQuery{Tool: tool, Input: input})
	if len(r.Items) != 1 || r.Items[0].Author != observations.AuthorAgent || !r.Items[0].Unreviewed ||
		!strings.HasPrefix(r.Items[0].Text, "The agent noted (unreviewed") || strings.Contains(r.Items[0].Text, "corrected") || r.Items[0].Lesson != "" {
		t.Errorf("recall: %+v", r.Items)
	}
	if r := rcRecall(t, k, RecallQuery{Standing: true}); len(r.Items) != 0 {
		t.Errorf("standing context holds the agent's note: %+v", r.Items)
	}
	hook, err := k.Hook(ctx, AgentClaudeCode, &HookInput{HookEventName: EventPreToolUse, ToolName: tool, ToolInput: input})
	if err != nil || hook == nil || hook.HookSpecificOutput.PermissionDecision != "" {
		t.Errorf("PreToolUse on the agent's note: %+v %v", hook, err)
	}
	if st, err := k.Status(ctx); err != nil || len(st.NeedsReview) != 1 || st.NeedsReview[0].ID != id {
		t.Errorf("status: %+v %v", st, err)
	}
	if library.IsCandidate(o) {
		t.Errorf("the agent's note is a promotion candidate")
	}
	if cands := learn.Candidates(learnObservations(files)); len(cands) != 0 {
		t.Errorf("learn takes the agent's note: %+v", cands[0])
	}

	// After a person's review it counts, still labelled as the agent's.
	if _, err := k.Review(ctx, id[:8], time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if res, err := k.Review(ctx, id, time.Now()); err != nil || res.Changed || !res.Reviewed.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("second review: %+v %v", res, err)
	}
	files, _, _ = k.LoadObservations(ctx)
	if o := files[0].Obs; o.NeedsReview() || !o.AgentAuthored() || !library.IsCandidate(o) || len(learn.Candidates(learnObservations(files))) != 1 || files[0].Edited {
		t.Errorf("reviewed: %+v (edited %v)", o, files[0].Edited)
	}
	hook, _ = k.Hook(ctx, AgentClaudeCode, &HookInput{HookEventName: EventPreToolUse, ToolName: tool, ToolInput: input})
	if hook == nil || hook.HookSpecificOutput.PermissionDecision != "ask" || !strings.Contains(hook.HookSpecificOutput.AdditionalContext, "The agent noted (reviewed") {
		t.Errorf("PreToolUse after review: %+v", hook)
	}
	if st, _ := k.Status(ctx); len(st.NeedsReview) != 0 {
		t.Errorf("status after review: %+v", st.NeedsReview)
	}
}

// TestReviewThePersonsOwn: only the agent's observations take a review.
func TestReviewThePersonsOwn(t *testing.T) {
	k := rcKB(t)
	o := rcCorrection(t, k, "staging every change", "Stage files by name.", []string{"git:stage-all"})
	if _, err := k.Review(context.Background(), o.ID, time.Now()); err == nil {
		t.Errorf("reviewing the person's own observation succeeded")
	}
}
