package kb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kbmem/kb/observations"
)

// TestWhyAndADRDraft: kb why answers "why did we do X" and "why didn't we
// do Y" with sources; kb adr draft assembles the alternatives.
func TestWhyAndADRDraft(t *testing.T) {
	t.Parallel()
	_, k := newProject(t)
	loadFixture(t, k)
	ctx := context.Background()
	ans, err := k.Why(ctx, "Why did we choose Vite?", 10)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Terms != "vite" || len(ans.Items) == 0 {
		t.Fatalf("why vite: %+v", ans)
	}
	var dec *WhyItem
	for i := range ans.Items {
		if ans.Items[i].Type == observations.TypeDecision {
			dec = &ans.Items[i]
		}
	}
	if dec == nil || dec.Chosen != "Vite" || len(dec.Alternatives) != 3 || !strings.Contains(strings.Join(dec.Reasons, " "), "team already uses Node") ||
		len(dec.Sources) == 0 || !strings.HasPrefix(dec.Sources[0], "s04") {
		t.Errorf("decision answer: %+v", dec)
	}
	neg, err := k.Why(ctx, "why didn't we raise the payment client timeout?", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(neg.Items) == 0 || neg.Items[0].Type != observations.TypeNegativeResult || !strings.Contains(neg.Items[0].Failure, "timeout") ||
		!strings.HasPrefix(neg.Items[0].Sources[0], "s16") {
		t.Errorf("negative answer: %+v", neg.Items)
	}
	for i := 1; i < len(neg.Items); i++ {
		if neg.Items[i].When.After(neg.Items[i-1].When) {
			t.Errorf("not newest first")
		}
	}
	if _, err := k.Why(ctx, "why?", 10); err == nil {
		t.Error("empty topic accepted")
	}

	// ADR draft from the decision's session, written, then found by why.
	d, err := k.DraftADR(ctx, ADRDraftOptions{Session: "s04", Write: true, Now: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "adr-0001-use-vite" || !d.Written || !strings.Contains(d.Content, "**Rack**") || !strings.Contains(d.Content, "## Sources") {
		t.Errorf("draft: %+v", d)
	}
	d2, err := k.DraftADR(ctx, ADRDraftOptions{FromObs: obsByText(t, k, "Chose Vite").Obs.ID})
	if err != nil || d2.ID != "adr-0002-use-vite" || d2.Written {
		t.Errorf("second draft: %+v %v", d2, err)
	}
	if _, err := k.DraftADR(ctx, ADRDraftOptions{Session: "s16-nothing"}); err == nil {
		t.Error("draft from a session without decisions worked")
	}
	again, err := k.Why(ctx, "why vite", 10)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range again.Items {
		if it.Type == "adr" && strings.Contains(it.Summary, "We chose Vite") {
			found = true
		}
	}
	if !found {
		t.Errorf("ADR not found by why: %+v", again.Items)
	}
}
