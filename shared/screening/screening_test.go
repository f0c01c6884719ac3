package screening_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/screening/screeningtest"
)

const provider = checks.ProviderOpenSanctions

var (
	at     = time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	ref    = checks.ScreeningReference(7, 42)
	check  = domain.Check{ID: 42, AccountID: 7, EntityID: 9, Type: domain.CheckOrganizationScreening, ProviderKey: provider, Status: domain.CheckPending}
	entity = domain.Entity{ID: 9, AccountID: 7, RegistrationStatus: domain.RegistrationValid}
	errDB  = errors.New("dynamodb: throttled")
)

// world is one test's store and reader: the check and entity each read
// answers, what each ApplyScreening answers in turn, and the calls made.
type world struct {
	check    domain.Check
	checkErr error
	entity   domain.Entity
	entErr   error
	applies  []error // each ApplyScreening's error in turn; nil: applied
	dup      bool    // ApplyScreening reports the webhook id seen before
	calls    []string
	updates  []domain.ScreeningUpdate
	earlier  []domain.Check // the entity's checks
}

func (w *world) service() *screening.Service {
	store := &screeningtest.Store{
		CheckFn: func(_ context.Context, accountID, id int64) (domain.Check, error) {
			w.calls = append(w.calls, fmt.Sprintf("Check(%d,%d)", accountID, id))
			return w.check, w.checkErr
		},
		EntityFn: func(_ context.Context, accountID, id int64) (domain.Entity, error) {
			w.calls = append(w.calls, fmt.Sprintf("Entity(%d,%d)", accountID, id))
			return w.entity, w.entErr
		},
		ApplyScreeningFn: func(_ context.Context, u domain.ScreeningUpdate) (bool, error) {
			w.calls = append(w.calls, "ApplyScreening")
			w.updates = append(w.updates, u)
			var err error
			if n := len(w.updates); n <= len(w.applies) {
				err = w.applies[n-1]
			}
			return err == nil && !w.dup, err
		},
		EntityChecksFn: func(_ context.Context, accountID, entityID int64, want int) ([]domain.Check, error) {
			w.calls = append(w.calls, fmt.Sprintf("EntityChecks(%d,%d)", accountID, entityID))
			return w.earlier, nil
		},
		ReserveCheckIDsFn: func(_ context.Context, accountID int64, n int) ([]int64, error) {
			w.calls = append(w.calls, fmt.Sprintf("ReserveCheckIDs(%d,%d)", accountID, n))
			return []int64{50}, nil
		},
	}
	reader := &screeningtest.Reader{ReadFn: func(reference string, qr checks.YenteQueryResponse) checks.ScreeningResult {
		w.calls = append(w.calls, "Read("+reference+")")
		return checks.ScreeningResult{Reference: reference, Status: domain.SanctionsHit, Matched: true, Total: qr.Total.Value, Dataset: "default"}
	}}
	return &screening.Service{Store: store, Readers: map[string]screening.Reader{provider: reader}, Clock: domain.FixedClock(at)}
}

// TestApply: every branch of applying an answer, with the exact calls it
// makes and the error code it answers.
func TestApply(t *testing.T) {
	once := []string{"Check(7,42)", "Entity(7,9)", "Read(" + ref + ")", "ApplyScreening"}
	repeat := func(n int) []string {
		var out []string
		for range n {
			out = append(out, once...)
		}
		return out
	}
	otherProvider := check
	otherProvider.ProviderKey = checks.ProviderWathq
	otherType := check
	otherType.Type = domain.CheckRegistryLookup
	tests := []struct {
		name        string
		provider    string
		answer      screening.Answer
		w           world
		wantApplied bool
		wantErr     error  // errors.Is
		wantCode    string // domain.ErrorCode of the error
		wantCalls   []string
	}{
		{name: "applied", w: world{check: check, entity: entity}, wantApplied: true, wantCalls: once},
		{name: "duplicate webhook", w: world{check: check, entity: entity, dup: true}, wantCalls: once},
		{name: "stale once, then applied", w: world{check: check, entity: entity, applies: []error{domain.ErrStale}},
			wantApplied: true, wantCalls: repeat(2)},
		{name: "stale three times, then applied", w: world{check: check, entity: entity, applies: []error{domain.ErrStale, domain.ErrStale, domain.ErrStale}},
			wantApplied: true, wantCalls: repeat(4)},
		{name: "stale on every attempt", w: world{check: check, entity: entity, applies: []error{domain.ErrStale, domain.ErrStale, domain.ErrStale, domain.ErrStale}},
			wantErr: domain.ErrStale, wantCode: domain.ECodeInternal, wantCalls: repeat(4)},
		{name: "store fault is not retried", w: world{check: check, entity: entity, applies: []error{errDB}},
			wantErr: errDB, wantCode: domain.ECodeInternal, wantCalls: once},
		{name: "unknown provider", provider: "nobody", wantErr: screening.UnknownProvider(), wantCode: domain.ECodeNotFound},
		{name: "reference not ours", answer: screening.Answer{Reference: "evs-7-x"}, wantErr: screening.UnknownReference(), wantCode: domain.ECodeNotFound},
		{name: "no such check", w: world{checkErr: domain.Errorf(domain.ECodeNotFound, "no check")},
			wantErr: screening.UnknownReference(), wantCode: domain.ECodeNotFound, wantCalls: once[:1]},
		{name: "check read fails", w: world{checkErr: errDB}, wantErr: errDB, wantCode: domain.ECodeInternal, wantCalls: once[:1]},
		{name: "check of another provider", w: world{check: otherProvider},
			wantErr: screening.UnknownReference(), wantCode: domain.ECodeNotFound, wantCalls: once[:1]},
		{name: "check of another type", w: world{check: otherType},
			wantErr: screening.UnknownReference(), wantCode: domain.ECodeNotFound, wantCalls: once[:1]},
		{name: "entity read fails", w: world{check: check, entErr: errDB}, wantErr: errDB, wantCode: domain.ECodeInternal, wantCalls: once[:2]},
		{name: "answer without results", answer: screening.Answer{Reference: ref, Response: checks.YenteQueryResponse{Status: 500}},
			w: world{check: check, entity: entity}, wantCode: domain.ECodeInvalid, wantCalls: once[:2]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.provider == "" {
				tt.provider = provider
			}
			if tt.answer.Reference == "" {
				tt.answer = screening.Answer{Reference: ref, Response: checks.YenteQueryResponse{Status: 200}}
			}
			applied, err := tt.w.service().Apply(context.Background(), tt.provider, "msg_1", tt.answer)
			if applied != tt.wantApplied || domain.ErrorCode(err) != tt.wantCode { // no code: no error
				t.Fatalf("Apply = %v, %v (code %q); want %v, code %q", applied, err, domain.ErrorCode(err), tt.wantApplied, tt.wantCode)
			}
			if tt.wantErr != nil && !sameError(err, tt.wantErr) {
				t.Errorf("err = %v, want one that is %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(tt.w.calls, tt.wantCalls) {
				t.Errorf("calls = %q\nwant    %q", tt.w.calls, tt.wantCalls)
			}
		})
	}
}

// TestApplyWrites: the update written is the answer as the reader read it,
// over the check and entity as read, scored afresh, at the clock's time.
func TestApplyWrites(t *testing.T) {
	delivered := domain.NewEvidence(provider, "POST", "/webhooks/"+provider, 200, []byte(`{"raw":"body"}`), at)
	tests := []struct {
		name, dataset, wantDataset string
		evidence                   *domain.Evidence
	}{
		{name: "the reader's dataset", wantDataset: "default"},
		{name: "the webhook's dataset", dataset: "sanctions", wantDataset: "sanctions"},
		{name: "the webhook's body as evidence", wantDataset: "default", evidence: delivered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := world{check: check, entity: entity}
			answer := screening.Answer{Reference: ref, Dataset: tt.dataset, Evidence: tt.evidence}
			answer.Response.Total.Value = 3
			if _, err := w.service().Apply(context.Background(), provider, "msg_1", answer); err != nil {
				t.Fatal(err)
			}
			read := checks.ScreeningResult{Reference: ref, Status: domain.SanctionsHit, Matched: true, Total: 3, Dataset: tt.wantDataset}
			result := checks.ScreeningResultMap(read)
			var ev *domain.Evidence
			if tt.evidence != nil {
				// Keyed by the reference's account and check; its metadata
				// (never the body) in the result.
				e := *tt.evidence
				e.AccountID, e.CheckID = check.AccountID, check.ID
				ev = &e
				result["evidence"] = e.ResultMap()
			}
			want := domain.ScreeningUpdate{
				Provider: provider, WebhookID: "msg_1", Reference: ref, Check: check, Entity: entity, Evidence: ev,
				Result:         checks.Sanitize(domain.CheckOrganizationScreening, result),
				ProviderStatus: "200", Answered: domain.SanctionsHit, SanctionsStatus: domain.SanctionsHit,
				Score: checks.ScoreAfterScreening(entity), At: at, ReceiptTTL: screening.ReceiptTTL,
			}
			if len(w.updates) != 1 || !reflect.DeepEqual(w.updates[0], want) {
				t.Errorf("updates = %+v\nwant     %+v", w.updates, want)
			}
		})
	}
}

// sameError: a refusal is the same when its code and message are (each is
// built where it is raised); any other error is the same by errors.Is.
func sameError(err, want error) bool {
	var d *domain.Error
	if errors.As(want, &d) {
		return domain.ErrorCode(err) == d.Code && domain.ErrorMessage(err) == d.Message
	}
	return errors.Is(err, want)
}

// TestLaterAnswerIsACheckOfItsOwn: an answer for a check no longer waiting
// (complete, or failed with the provider's error body as its evidence) never
// overwrites it: it is written as a new check (its id reserved, triggered
// provider_update, the same type, provider and subject), with the changes
// against the entity's previous complete screening, and the webhook's body
// is that new check's evidence.
func TestLaterAnswerIsACheckOfItsOwn(t *testing.T) {
	previous := check
	previous.ID, previous.Status = 41, domain.CheckCompleted
	previous.Result = map[string]any{"status": "clear", "matched": false, "matches_count": 0}
	for _, status := range []domain.CheckStatus{domain.CheckCompleted, domain.CheckFailed} {
		t.Run(string(status), func(t *testing.T) {
			done := check
			done.Status = status
			done.Result = map[string]any{"status": "clear", "matched": false, "matches_count": 0}
			w := world{check: done, entity: entity, earlier: []domain.Check{done, previous}}
			delivered := domain.NewEvidence(provider, "POST", "/webhooks/"+provider, 200, []byte(`{"re":"screen"}`), at)
			answer := screening.Answer{Reference: ref, Evidence: delivered}
			answer.Response.Total.Value = 1
			if _, err := w.service().Apply(context.Background(), provider, "msg_2", answer); err != nil {
				t.Fatal(err)
			}
			if len(w.updates) != 1 {
				t.Fatalf("%d updates", len(w.updates))
			}
			u := w.updates[0]
			n := u.New
			if n == nil || n.ID != 50 || n.Type != done.Type || n.ProviderKey != provider || n.EntityID != done.EntityID ||
				n.TriggeringReason != domain.TriggerProviderUpdate || n.Status != domain.CheckCompleted {
				t.Fatalf("new check %+v", n)
			}
			if u.Check.ID != done.ID || !reflect.DeepEqual(u.Check.Result, done.Result) {
				t.Errorf("the earlier check changed: %+v", u.Check)
			}
			if u.Evidence == nil || u.Evidence.CheckID != 50 || u.Evidence.SHA256 != delivered.SHA256 {
				t.Errorf("evidence %+v, want the new check's", u.Evidence)
			}
			wantPrev := done.ID
			if status != domain.CheckCompleted {
				wantPrev = previous.ID // a failed check is no screening to compare with
			}
			if ch, ok := n.Result["changes"].(map[string]any); !ok || ch["previous_check_id"] != wantPrev {
				t.Errorf("changes %v, want against check %d", n.Result["changes"], wantPrev)
			}
		})
	}
}

// TestReplayKeepsNothing: a webhook id already applied is answered from its
// receipt before the check is read, an id reserved or evidence kept; and a
// later answer retried after a stale write keeps the one id it reserved.
func TestReplayKeepsNothing(t *testing.T) {
	w := world{check: check, entity: entity}
	svc := w.service()
	svc.Store.(*screeningtest.Store).WebhookSeenFn = func(context.Context, string, string, time.Time) (bool, error) { return true, nil }
	applied, err := svc.Apply(context.Background(), provider, "msg_seen", screening.Answer{Reference: ref})
	if err != nil || applied || len(w.calls) != 0 {
		t.Fatalf("a replay: applied %v, %v, calls %v; want nothing done", applied, err, w.calls)
	}

	done := check
	done.Status = domain.CheckCompleted
	w = world{check: done, entity: entity, earlier: []domain.Check{done}, applies: []error{domain.ErrStale, domain.ErrStale}}
	if _, err := w.service().Apply(context.Background(), provider, "msg_3", screening.Answer{Reference: ref}); err != nil {
		t.Fatal(err)
	}
	reserved := 0
	for _, c := range w.calls {
		if strings.HasPrefix(c, "ReserveCheckIDs") {
			reserved++
		}
	}
	if reserved != 1 || len(w.updates) != 3 || w.updates[0].New.ID != w.updates[2].New.ID {
		t.Errorf("%d reservations over %d attempts (ids %d, %d); want one id for all", reserved, len(w.updates), w.updates[0].New.ID, w.updates[len(w.updates)-1].New.ID)
	}
}
