package main

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestETags: through the gateway, each representation of both get-one
// endpoints has a stable ETag of its own; If-None-Match naming it (alone,
// in a list, weak) gets a 304 with no body, another tag the 200. A decision
// bound to the entity's Markdown tag as the API gave it is applied (a JSON
// tag is refused with StaleView), and every tag changes after it.
func TestETags(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	rich := f.a[4]
	entity, review := "/api/v1/entities/"+id(rich), "/api/v1/entity_reviews/"+strconv.FormatInt(rich.Reviews[0].ID, 10)
	reps := []struct{ name, path, accept string }{
		{"entity JSON", entity, ""},
		{"entity Markdown by Accept", entity, "text/markdown"},
		{"entity Markdown", entity + ".md", ""},
		{"review JSON", review, ""},
		{"review Markdown by Accept", review, "text/markdown"},
		{"review Markdown", review + ".md", ""},
	}
	tags := map[string]string{}
	for _, rep := range reps {
		t.Run(rep.name, func(t *testing.T) {
			r := f.get(t, rep.path, f.keyA, "Accept", rep.accept)
			tag := r.header.Get("ETag")
			if r.status != 200 || tag == "" || r.header.Get("Vary") != "Accept" {
				t.Fatalf("%d, ETag %q, Vary %q", r.status, tag, r.header.Get("Vary"))
			}
			if again := f.get(t, rep.path, f.keyA, "Accept", rep.accept).header.Get("ETag"); again != tag {
				t.Errorf("ETag %s then %s", tag, again)
			}
			tags[rep.name] = tag
			for _, c := range []struct {
				inm  string
				want int
			}{{tag, 304}, {`"x", ` + tag, 304}, {"W/" + tag, 304}, {`"x"`, 200}} {
				r := f.get(t, rep.path, f.keyA, "Accept", rep.accept, "If-None-Match", c.inm)
				if r.status != c.want || r.header.Get("ETag") != tag || (c.want == 304 && len(r.body) != 0) {
					t.Errorf("If-None-Match %s: %d, ETag %q, %d bytes; want %d with %s", c.inm, r.status, r.header.Get("ETag"), len(r.body), c.want, tag)
				}
			}
		})
	}
	if tags["entity JSON"] == tags["entity Markdown"] || tags["entity Markdown"] != tags["entity Markdown by Accept"] {
		t.Errorf("entity tags %v", tags)
	}

	// A decision on the rich entity, bound to what the operator saw.
	e := &env{store: f.st, log: quietLogger()}
	decide, err := decisionService(e, "")
	if err != nil {
		t.Fatal(err)
	}
	op, err := f.st.CreateOperator(ctx, rich.Entity.AccountID, "Rania Risk", []string{domain.PermRiskAssess}, domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	assess := func(id, seen string) error {
		_, err := decide(ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseApply, Request: decisions.Request{Action: domain.ActionAssessRisk,
			AccountID: rich.Entity.AccountID, ReviewID: rich.Reviews[1].ID, OperatorID: op.ID, ActionID: id, RiskLevel: "high", Seen: seen}}))
		return err
	}
	var refusal messages.InvokeResponse_Error
	if err := assess("etag-json", tags["entity JSON"]); !errors.As(err, &refusal) || refusal.Type != domain.FailStaleView {
		t.Fatalf("a decision on the JSON tag: %v, want StaleView (the dossier's tag is the Markdown's)", err)
	}
	if err := assess("etag-md", tags["entity Markdown"]); err != nil {
		t.Fatalf("a decision on the Markdown tag: %v", err)
	}
	for _, rep := range reps {
		r := f.get(t, rep.path, f.keyA, "Accept", rep.accept, "If-None-Match", tags[rep.name])
		if r.status != 200 || r.header.Get("ETag") == tags[rep.name] {
			t.Errorf("%s after the decision: %d, ETag %s (was %s)", rep.name, r.status, r.header.Get("ETag"), tags[rep.name])
		}
	}
}
