package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// importCase is a check to import and what the evidence table must hold
// for it afterwards.
type importCase struct {
	name string
	// evidence makes the check's evidence of body; nil: no answer.
	evidence func(body []byte) *domain.Evidence
	want     string // "body", "key" (in the blob store) or "none"
}

var importCases = []importCase{
	{"answered", func(b []byte) *domain.Evidence {
		return domain.NewEvidence("wathq", "GET", "https://api.wathq.sa/v4/commercialregistration/info/7001234567", 200, b, t0)
	}, "body"},
	{"error answer", func(b []byte) *domain.Evidence {
		return domain.NewEvidence("opensanctions", "POST", "https://api.opensanctions.org/match/default", 503, b, t0)
	}, "body"},
	{"in the bucket", func(b []byte) *domain.Evidence {
		ev := domain.NewEvidence("wathq", "GET", "https://api.wathq.sa/v4/x", 200, b, t0)
		ev.Body, ev.BodyKey = nil, "evidence/1/2/"+ev.SHA256 // as checks.KeepEvidence leaves it
		return ev
	}, "key"},
	{"not kept", func(b []byte) *domain.Evidence {
		ev := domain.NewEvidence("wathq", "GET", "https://api.wathq.sa/v4/x", 200, b, t0)
		ev.Body, ev.Stored, ev.StoredReason = nil, false, "too large"
		return ev
	}, "none"},
	{"no answer", nil, "none"},
}

// importBody is the answer to case name of entity i: unique, so that a
// body kept under the wrong check shows.
func importBody(i int, name string) []byte {
	return fmt.Appendf(nil, `{"entity":%d,"case":%q}`, i, name)
}

// entityWithAnswers is entity i with one check per case (its name in the
// result) and one review.
func entityWithAnswers(acct int64, i int, cases []importCase) domain.EntityDetail {
	d := sampleEntity(acct, "SA", fmt.Sprintf("70%08d", i), t0.Add(time.Duration(i)*time.Minute))
	for k, c := range cases {
		at := d.Entity.CreatedAt.Add(time.Duration(k) * time.Second)
		ch := domain.Check{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted,
			TriggeringReason: domain.TriggerIntake, Result: map[string]any{"case": c.name}, CheckedAt: &at, CreatedAt: at, UpdatedAt: at}
		if c.evidence != nil {
			ch.Evidence = c.evidence(importBody(i, c.name))
			ch.Result["evidence"] = ch.Evidence.ResultMap()
		}
		d.Checks = append(d.Checks, ch)
	}
	d.Reviews = []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: d.Entity.CreatedAt, UpdatedAt: d.Entity.CreatedAt}}
	return d
}

// TestImportEntitiesKeepsEvidence: an import keeps each check's answer under
// the check's id, as a create does: the body byte for byte (it verifies),
// an error answer too, a blob store key without a body, and nothing for an
// answer not kept or a check with no answer.
func TestImportEntitiesKeepsEvidence(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	ds := []domain.EntityDetail{entityWithAnswers(acct, 0, importCases), entityWithAnswers(acct, 1, importCases)}
	out, err := st.ImportEntities(ctx, acct, ds)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range out {
		for _, c := range d.Checks {
			name := c.Result["case"].(string)
			var tc importCase
			for _, x := range importCases {
				if x.name == name {
					tc = x
				}
			}
			t.Run(fmt.Sprintf("entity %d/%s", i, name), func(t *testing.T) {
				ev, err := st.Evidence(ctx, acct, c.ID)
				if tc.want == "none" {
					if domain.ErrorCode(err) != domain.ECodeNotFound {
						t.Fatalf("err = %v, want not_found", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := tc.evidence(importBody(i, name))
				if ev.AccountID != acct || ev.CheckID != c.ID || ev.SHA256 != want.SHA256 || ev.Size != want.Size ||
					ev.HTTPStatus != want.HTTPStatus || ev.URL != want.URL || !ev.ReceivedAt.Equal(t0) {
					t.Errorf("evidence %+v, want %+v under check %d", ev, want, c.ID)
				}
				if tc.want == "key" {
					if ev.BodyKey != want.BodyKey || len(ev.Body) != 0 {
						t.Errorf("key %q with %d bytes inline, want %q and none", ev.BodyKey, len(ev.Body), want.BodyKey)
					}
					return
				}
				if ok, got := ev.Verify(); !ok || !bytes.Equal(ev.Body, want.Body) {
					t.Errorf("body %q hashes to %s (verified %v), want %q", ev.Body, got, ok, want.Body)
				}
			})
		}
	}
}

// TestImportEntitiesEvidenceRequests: the answers go in the import's batch
// writes, 25 items a request like every other table's: 30 entities with two
// answers each cost three requests more, not one per answer.
func TestImportEntitiesEvidenceRequests(t *testing.T) {
	const n = 30
	counter := &devstacktest.Reads{}
	st := devstacktest.Store(t, counter.Option)
	acct := newAccount(t, st, "SA")
	ds := make([]domain.EntityDetail, n)
	for i := range ds {
		ds[i] = entityWithAnswers(acct, i, importCases[:2])
	}
	counter.Reset()
	if _, err := st.ImportEntities(context.Background(), acct, ds); err != nil {
		t.Fatal(err)
	}
	batches := func(items int) int { return (items + 24) / 25 }
	// Entities, registration guards, checks, reviews; then the evidence.
	want := batches(n) + batches(n) + batches(2*n) + batches(n) + batches(2*n)
	if got := counter.Requests()["*dynamodb.BatchWriteItemOutput"]; got != want {
		t.Errorf("%d BatchWriteItem requests, want %d (%d of them the evidence's); all requests %v", got, want, batches(2*n), counter.Requests())
	}
}

// failCommits fails every TransactWriteItems: an import's counters never
// move, so each chunk it wrote must be deleted again.
func failCommits(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("fail-commits", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if _, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok {
				return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("injected: the commit fails")
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
	})
}

// TestImportUndoDeletesEvidence: a chunk whose commit fails leaves neither
// its checks nor their evidence behind.
func TestImportUndoDeletesEvidence(t *testing.T) {
	ctx := context.Background()
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	acct := newAccount(t, store.New(db, names), "SA")
	failing := store.New(devstack.DB(failCommits), names)
	ds := []domain.EntityDetail{entityWithAnswers(acct, 0, importCases), entityWithAnswers(acct, 1, importCases)}
	if _, err := failing.ImportEntities(ctx, acct, ds); err == nil {
		t.Fatal("the import succeeded without its commit")
	}
	for _, table := range []string{schema.Evidence, schema.Checks} {
		var left []map[string]any
		if err := db.Table(names[table]).Get("account_id", acct).Consistent(true).All(ctx, &left); err != nil {
			t.Fatal(err)
		}
		if len(left) != 0 {
			t.Errorf("%s: %d items left behind", table, len(left))
		}
	}
}

// TestImportRefusesEvidenceTooLargeInline: a body over what an item holds,
// with no blob store key, fails the import before anything is written.
func TestImportRefusesEvidenceTooLargeInline(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	big := []importCase{{"too large", func([]byte) *domain.Evidence {
		return domain.NewEvidence("wathq", "GET", "https://api.wathq.sa/v4/x", 200, bytes.Repeat([]byte("x"), domain.MaxInlineEvidence+1), t0)
	}, "none"}}
	d := entityWithAnswers(acct, 0, big)
	if _, err := st.ImportEntities(ctx, acct, []domain.EntityDetail{d}); err == nil {
		t.Fatal("imported evidence too large for its item, with no blob key")
	}
	if page, err := st.ListEntities(ctx, acct, domain.EntityFilter{}, 1, 10); err != nil || page.Total != 0 {
		t.Errorf("entities written: %+v, %v", page, err)
	}
}
