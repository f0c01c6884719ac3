package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/verify"
)

// The attack measured in issue 36, on DynamoDB Local with the records
// directory: on an account that requires signed decisions, a writer of the
// records bucket appends an end_relationship record at the end of an
// entity's locked trail (linked by prev_hash, hashed with auditchain.Sum),
// carrying the document and signatures of another entity's signed
// decision — or no signature, declared decisions being turned on after the
// fact — then deletes that trail and its head from DynamoDB. audit
// --verify believes no such closure: it names every record gone from
// DynamoDB missing, the closure not believed, and exits non-zero.
func TestAForgedClosureIsNotBelieved(t *testing.T) {
	ctx := context.Background()
	st, names := cliStore(t)
	dir := t.TempDir()
	t.Setenv("EVS_RECORDS_DIR", dir)
	rec := records.Dir{Root: dir}
	e := &env{store: st, log: quietLogger()}
	created, err := createAccount(ctx, e, "Forged closures", []string{"SA"}) // every decision signed
	if err != nil {
		t.Fatal(err)
	}
	acct := created.ID
	keys := &passkey.Service{Store: st, Clock: domain.SystemClock, Config: localPasskeys()}
	dana := wfSigner(t, keys, st, acct, "Dana Decider")
	decide, err := decisionService(e, "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	apply := func(entity, review int64, action domain.Action, reason string) {
		t.Helper()
		n++
		req := decisions.Request{Action: action, AccountID: acct, EntityID: entity, ReviewID: review, OperatorID: dana.ID,
			ActionID: fmt.Sprintf("forge-%d", n), Reason: reason}
		a, err := dana.Sign(ctx, passkey.PurposeDecision, decisions.Digest(req))
		if err != nil {
			t.Fatal(err)
		}
		req.Signature = &a
		if _, err := decide(ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseApply, Request: req})); err != nil {
			t.Fatalf("%s: %v", action, taskError(err))
		}
	}
	entity := func(number string) (int64, int64) {
		t.Helper()
		review := wfReview(t, st, acct, number)
		r, err := st.Review(ctx, acct, review)
		if err != nil {
			t.Fatal(err)
		}
		return r.EntityID, review
	}

	// Entity A: started, approved and its relationship ended, each signed.
	a, aReview := entity("7000003601")
	apply(a, aReview, domain.ActionStart, "")
	apply(a, aReview, domain.ActionApprove, "documents_verified")
	apply(a, aReview, domain.ActionEndRelationship, "customer left")
	lockChain(t, st, rec, acct, a)
	lockChain(t, st, rec, acct, 0) // the account's own: its passkeys, its settings
	aLocked, brk, err := verify.LockedChain(ctx, rec, acct, a)
	if err != nil || brk != nil || len(aLocked) != 3 {
		t.Fatalf("entity A's locked trail: %d records, %v, %v", len(aLocked), brk, err)
	}
	approved, ended := aLocked[1], aLocked[2]
	// A's own closure, signed, is believed where it stands.
	if until, ok, err := verify.LockedClosure(ctx, rec, acct, a, verify.Closures{Passkeys: localPasskeys()}); err != nil || !ok || until.Before(time.Now().AddDate(9, 0, 0)) {
		t.Fatalf("entity A's own closure: until %v, believed %t, %v", until, ok, err)
	}

	retainedUntil := fmt.Sprintf(`{"relationship_ended_at":%q,"retain_until":%q}`,
		domain.FormatTime(time.Now().AddDate(-10, 0, -1)), domain.FormatTime(time.Now().AddDate(0, 0, -1)))
	for i, tc := range []struct {
		name string
		// closure is the forged record's content: what the forger copies.
		closure func(l *auditchain.Link)
		// declaredLater turns declared decisions on once the closure is
		// locked (admin account.update, recorded in the account's chain).
		declaredLater bool
		why           string // the closure's refusal says
	}{
		{"an approve of another entity, its document and signatures copied", func(l *auditchain.Link) {
			l.ReviewID, l.Reason, l.SeenETag = approved.ReviewID, approved.Reason, approved.SeenETag
			l.Identity, l.DecisionDocument, l.Signatures = approved.Identity, approved.DecisionDocument, approved.Signatures
		}, false, `action "approve" in the document, "end_relationship" in the record`},
		{"an end_relationship of another entity, its document and signatures copied", func(l *auditchain.Link) {
			l.ReviewID, l.Reason, l.SeenETag = ended.ReviewID, ended.Reason, ended.SeenETag
			l.Identity, l.DecisionDocument, l.Signatures = ended.Identity, ended.DecisionDocument, ended.Signatures
		}, false, fmt.Sprintf("entity_id %d in the document", a)},
		{"unsigned, declared decisions turned on after the fact", func(l *auditchain.Link) {
			l.Identity, l.Reason = string(domain.IdentityDeclared), "customer left"
		}, true, "did not accept declared decisions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Entity B: two signed decisions, locked by the stream.
			b, bReview := entity(fmt.Sprintf("70000036%d0", i+1))
			apply(b, bReview, domain.ActionStart, "")
			apply(b, bReview, domain.ActionEscalate, "needs_supervisor: ownership")
			lockChain(t, st, rec, acct, b)
			trail, _, err := verify.LockedChain(ctx, rec, acct, b)
			if err != nil || len(trail) == 0 {
				t.Fatalf("entity B's locked trail: %v", err)
			}
			last := trail[len(trail)-1]
			forged := auditchain.Link{Version: auditchain.Version, AccountID: acct, EntityID: b, Seq: last.Seq + 1,
				ActionID: fmt.Sprintf("forged-%d", i), Action: string(domain.ActionEndRelationship), OperatorID: dana.ID, OperatorName: dana.Name,
				Before: "{}", After: retainedUntil, At: domain.FormatTime(time.Now()), PrevHash: last.Hash}
			tc.closure(&forged)
			if forged.Hash, err = auditchain.Sum(forged); err != nil {
				t.Fatal(err)
			}
			if _, err := rec.Put(ctx, recordslayout.RecordKey(acct, b, forged.Seq), auditchain.Canonical(forged)); err != nil {
				t.Fatal(err)
			}
			if held, brk, _ := verify.LockedChain(ctx, rec, acct, b); brk != nil || len(held) != len(trail)+1 {
				t.Fatalf("the forged closure does not hold in the locked trail: %v", brk)
			}
			if tc.declaredLater {
				if _, stderr, err := runCaptured(t, "account", "update", "--id", strconv.FormatInt(acct, 10), "--declared-decisions", "true"); err != nil {
					t.Fatalf("account update: %v (%s)", err, stderr)
				}
				lockChain(t, st, rec, acct, 0)
			}
			deleteTrail(t, st, names, acct, b)

			out, _, err := runCaptured(t, "audit", "--verify", "--account", strconv.FormatInt(acct, 10), "--entity", strconv.FormatInt(b, 10))
			if err == nil {
				t.Fatalf("audit --verify exits 0 over a removed trail:\n%s", out)
			}
			v := verifyView(t, out)
			var got []string
			for _, f := range v.Locked.Findings {
				got = append(got, fmt.Sprintf("%s@%d", f.Kind, f.Seq))
			}
			for seq := int64(1); seq <= forged.Seq; seq++ {
				if !slices.Contains(got, fmt.Sprintf("%s@%d", verify.FindingMissing, seq)) {
					t.Errorf("seq %d is not named missing: %v", seq, got)
				}
			}
			i := slices.IndexFunc(v.Locked.Findings, func(f verify.Finding) bool { return f.Kind == verify.FindingClosureNotBelieved })
			if i < 0 || v.Locked.Findings[i].Seq != forged.Seq || !strings.Contains(v.Locked.Findings[i].Message, tc.why) || v.Locked.Expired != 0 || v.Intact {
				t.Errorf("findings %v (%+v), expired %d, intact %t; want the closure not believed for %q, nothing expired", got, v.Locked.Findings, v.Locked.Expired, v.Intact, tc.why)
			}
			if !strings.Contains(err.Error(), "missing from DynamoDB") {
				t.Errorf("audit --verify fails with %q; want the first removed record named", err)
			}
			t.Logf("%s: %v", tc.name, got)
		})
	}
}

// lockChain locks every record of the entity's chain in rec, as the
// audit stream does.
func lockChain(t *testing.T, st *store.Store, rec records.Dir, acct, entity int64) {
	t.Helper()
	c, err := st.AuditChain(context.Background(), acct, entity)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range c.Records {
		if _, err := rec.Put(context.Background(), recordslayout.RecordKey(acct, entity, l.Seq), auditchain.Canonical(l)); err != nil {
			t.Fatal(err)
		}
	}
}

// deleteTrail deletes the entity's audit records and its chain's head from
// DynamoDB, as a writer of the audit table could.
func deleteTrail(t *testing.T, st *store.Store, names schema.Names, acct, entity int64) {
	t.Helper()
	ctx := context.Background()
	c, err := st.AuditChain(ctx, acct, entity)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{fmt.Sprintf("HEAD#%d", entity)}
	for _, l := range c.Records {
		ids = append(ids, l.ActionID)
	}
	for _, id := range ids {
		if err := st.DB().Table(names[schema.Audit]).Delete("account_id", acct).Range("action_id", id).Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := st.AuditChain(ctx, acct, entity); err != nil || len(c.Records) != 0 {
		t.Fatalf("entity %d's trail still in DynamoDB: %d records, %v", entity, len(c.Records), err)
	}
}

// verifyView is audit --verify's check, the JSON line after the trail.
func verifyView(t *testing.T, out string) admin.AuditChainView {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, `"locked"`) {
			continue
		}
		var v admin.AuditChainView
		if err := json.Unmarshal([]byte(line), &v); err == nil && v.Locked != nil {
			return v
		}
	}
	t.Fatalf("audit --verify printed no check:\n%s", out)
	return admin.AuditChainView{}
}
