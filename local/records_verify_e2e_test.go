package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/verify"
)

// The regulator's verifier on a copy of the records bucket made by the
// real flow — decisions, signed and declared, locked by the audit and
// evidence streams' pollers, then two daily runs (audit.export) — once as
// it is, and once after each tampering of the copy, each named.
func TestTheRegulatorsVerifier(t *testing.T) {
	dir := t.TempDir()
	f := newFlowFixtureWith(t, flowOptions{PollInterval: 20 * time.Millisecond, RetryBackoff: 20 * time.Millisecond,
		ClientTimeout: 2 * time.Second, RecordsDir: dir})
	t.Cleanup(f.flow.run(f.ctx, flowLog()))
	rec := records.Dir{Root: dir}
	a, b := bucketByTheFlow(t, f, rec)

	cases := []struct {
		name   string
		tamper func(t *testing.T, copy string)
		want   string // the finding's kind in the output ("": intact)
	}{
		{"intact", nil, ""},
		{"a record's bytes changed", func(t *testing.T, c string) {
			edit(t, c, recordslayout.RecordKey(f.acct, b.entity, 1), func(s []byte) []byte { return bytes.Replace(s, []byte("reason=3:e2e"), []byte("reason=3:E2E"), 1) })
		}, verify.FindingBroken},
		{"a record removed from the middle", func(t *testing.T, c string) {
			removeKey(t, c, recordslayout.RecordKey(f.acct, b.entity, b.head/2+1))
		}, verify.FindingBroken},
		{"a manifest deleted", func(t *testing.T, c string) { removeKey(t, c, a.manifests[0]) }, verify.FindingManifestGap},
		{"an object a manifest lists deleted", func(t *testing.T, c string) {
			removeKey(t, c, recordslayout.RecordKey(f.acct, b.entity, b.head)) // the head the manifests name
		}, verify.FindingLockedBehindManifest},
		{"a party's change rewritten", func(t *testing.T, c string) {
			edit(t, c, recordslayout.RecordKey(f.acct, b.entity, b.partySeq), func(s []byte) []byte {
				return bytes.Replace(s, []byte(declaredPartner), []byte("Sara Al Otaibi"), -1)
			})
		}, verify.FindingUnreadable}, // its bytes no longer the record its key and hash name
		{"an evidence body changed", func(t *testing.T, c string) {
			edit(t, c, b.evidence, func(s []byte) []byte { return append(s, ' ') })
		}, verify.FindingEvidenceDiffers},
		{"a forged closure with a copied signature", func(t *testing.T, c string) {
			forgeClosure(t, records.Dir{Root: c}, a.signed, f.acct, b.entity)
		}, verify.FindingDoesNotCount},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := copyDir(t, dir)
			if tc.tamper != nil {
				tc.tamper(t, c)
			}
			var out bytes.Buffer
			err := runRecordsVerify(context.Background(), []string{"verify", "--dir", c}, &out)
			switch {
			case tc.want == "" && (err != nil || !strings.Contains(out.String(), "intact: no finding")):
				t.Errorf("records verify on the untouched copy: %v\n%s", err, out.String())
			case tc.want != "" && (!errors.Is(err, errFindings) || !strings.Contains(out.String(), tc.want+": ")):
				t.Errorf("records verify: %v, want a finding %s named:\n%s", err, tc.want, out.String())
			}
			if tc.want == "" && !strings.Contains(out.String(), " approve by operator ") {
				t.Errorf("the signed approve is not listed among the decisions:\n%s", out.String())
			}
			if tc.want == "" && !strings.Contains(out.String(), fmt.Sprintf("seq %d record_party by operator ", b.partySeq)) {
				t.Errorf("the party recorded (seq %d) is not listed among the decisions:\n%s", b.partySeq, out.String())
			}
			t.Logf("%s:\n%s", tc.name, out.String())
		})
	}
}

// flowEntity is what bucketByTheFlow made of an entity: its id, its
// chain's head seq, its evidence's key, its signed approve as locked, the
// manifests, and the seq of the record of a party recorded.
type flowEntity struct {
	entity    int64
	head      int64
	evidence  string
	signed    auditchain.Link
	manifests []string
	partySeq  int64
}

// declaredPartner is the party the merchant declared for entity B.
const declaredPartner = "Sara Al Qahtani"

// bucketByTheFlow makes entity A (three decisions signed with a passkey)
// and entity B (four declared, one a party the merchant declared, and a
// provider's answer), waits for the
// streams to lock them, and runs the daily run twice, a minute apart.
func bucketByTheFlow(t *testing.T, f *flowFixture, rec records.Dir) (flowEntity, flowEntity) {
	ctx := f.ctx
	e := &env{store: f.st, log: quietLogger()}
	keys := &passkey.Service{Store: f.st, Clock: domain.SystemClock, Config: localPasskeys()}
	dana := wfSigner(t, keys, f.st, f.acct, "Dana Decider")
	decide, err := decisionService(e, "")
	if err != nil {
		t.Fatal(err)
	}
	aReview := wfReview(t, f.st, f.acct, "7000009981")
	r, err := f.st.Review(ctx, f.acct, aReview)
	if err != nil {
		t.Fatal(err)
	}
	for i, act := range []domain.Action{domain.ActionStart, domain.ActionApprove} {
		req := decisions.Request{Action: act, AccountID: f.acct, EntityID: r.EntityID, ReviewID: aReview, OperatorID: dana.ID, ActionID: fmt.Sprintf("signed-%d", i)}
		if act == domain.ActionApprove {
			req.Reason = "documents_verified"
		}
		sig, err := dana.Sign(ctx, passkey.PurposeDecision, decisions.Digest(req))
		if err != nil {
			t.Fatal(err)
		}
		req.Signature = &sig
		if _, err := decide(ctx, decisions.Document(decisions.TaskInput{Phase: decisions.PhaseApply, Request: req})); err != nil {
			t.Fatalf("%s: %v", act, taskError(err))
		}
	}
	bd := f.screenedEntity("7000009982")
	f.decide(domain.ActionAssign, bd.Reviews[0].ID, func(q *decisions.Request) { q.AssigneeID = f.op.ID })
	f.decide(domain.ActionStart, bd.Reviews[0].ID, nil)
	f.decide(domain.ActionRecordParty, bd.Reviews[0].ID, func(q *decisions.Request) {
		q.Reason, q.PartyOp, q.PartyKind, q.PartySource = "merchant_declared: the shareholder register of 2026-11", domain.PartyOpAdd, "person", string(domain.PartyDeclared)
		q.PartyName, q.PartyRoles, q.PartyShares, q.PartyNationality = new(declaredPartner), new("owner"), new(int64(500)), new("SA")
	})
	f.decide(domain.ActionEscalate, bd.Reviews[0].ID, func(q *decisions.Request) { q.Reason = "needs_supervisor: ownership" })
	a, b := flowEntity{entity: r.EntityID}, flowEntity{entity: bd.Entity.ID}
	ev, err := f.st.Evidence(ctx, f.acct, bd.Checks[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	b.evidence = recordslayout.EvidenceKey(f.acct, bd.Checks[0].ID, ev.SHA256)
	waitUntil(t, "every chain and the evidence locked by the streams", func() bool {
		for _, x := range []*flowEntity{{entity: 0}, &a, &b} {
			c, err := f.st.AuditChain(ctx, f.acct, x.entity)
			locked, _ := rec.List(ctx, recordslayout.ChainPrefix(f.acct, x.entity))
			if err != nil || c.Head.Seq == 0 || int64(len(locked)) != c.Head.Seq {
				return false
			}
			x.head = c.Head.Seq
		}
		got, _ := rec.List(ctx, b.evidence)
		return len(got) == 1
	})
	chain, err := f.st.AuditChain(ctx, f.acct, b.entity)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range chain.Records {
		if l.Action == string(domain.ActionRecordParty) && strings.Contains(l.After, declaredPartner) {
			b.partySeq = l.Seq
		}
	}
	if b.partySeq == 0 {
		t.Fatalf("entity B's trail has no record_party naming %s", declaredPartner)
	}
	now := time.Now().UTC().Truncate(time.Second)
	for i := range 2 {
		var out map[string]any
		f.admin(domain.FixedClock(now.Add(time.Duration(i)*time.Minute)), rec, map[string]any{"command": "audit.export", "account_id": f.acct}, &out)
		a.manifests = append(a.manifests, recordslayout.ManifestKey(f.acct, now.Add(time.Duration(i)*time.Minute)))
	}
	locked, _, err := verify.LockedChain(ctx, rec, f.acct, a.entity)
	if err != nil || len(locked) < 2 {
		t.Fatalf("entity A's locked trail: %d, %v", len(locked), err)
	}
	a.signed = locked[len(locked)-1]
	return a, b
}

// forgeClosure appends to the entity's locked trail an end_relationship
// record carrying another record's document and signatures, linked by
// prev_hash and hashed as the exporter would.
func forgeClosure(t *testing.T, rec records.Dir, signed auditchain.Link, acct, entity int64) {
	t.Helper()
	trail, _, err := verify.LockedChain(context.Background(), rec, acct, entity)
	if err != nil || len(trail) == 0 {
		t.Fatalf("the trail to forge onto: %v", err)
	}
	last := trail[len(trail)-1]
	forged := auditchain.Link{Version: auditchain.Version, AccountID: acct, EntityID: entity, Seq: last.Seq + 1, ActionID: "forged",
		Action: string(domain.ActionEndRelationship), OperatorID: signed.OperatorID, OperatorName: signed.OperatorName, ReviewID: signed.ReviewID,
		Reason: signed.Reason, SeenETag: signed.SeenETag, Identity: signed.Identity, DecisionDocument: signed.DecisionDocument, Signatures: signed.Signatures,
		Before: "{}", After: fmt.Sprintf(`{"retain_until":%q}`, domain.FormatTime(time.Now().AddDate(0, 0, -1))), At: domain.FormatTime(time.Now()), PrevHash: last.Hash}
	if forged.Hash, err = auditchain.Sum(forged); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Put(context.Background(), recordslayout.RecordKey(acct, entity, forged.Seq), auditchain.Canonical(forged)); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the records directory, as a regulator receives it.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

func edit(t *testing.T, root, key string, change func([]byte) []byte) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(key))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, change(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

func removeKey(t *testing.T, root, key string) {
	t.Helper()
	if err := os.Remove(filepath.Join(root, filepath.FromSlash(key))); err != nil {
		t.Fatal(err)
	}
}
