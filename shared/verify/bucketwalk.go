package verify

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/evs-kyb/evs/shared/passkey"
)

// A regulator's verifier: a copy of the records bucket checked alone, with
// no table, no service and no credential of the service — every chain,
// every decision by the one rule (passkey.AccountChain.Counts) against the
// passkeys its account's own locked chain recorded, every evidence body
// against the SHA-256 its key names, and the manifests. It walks the
// bucket a folder at a time and reports each chain as it goes, so that
// what it holds at once is one chain and one account's manifest heads.

// BucketReader is a copy of the records bucket a verifier walks.
type BucketReader interface {
	Reader
	// Folders lists the folders directly under prefix (ending in "/").
	Folders(ctx context.Context, prefix string) ([]string, error)
}

// Finding kinds only a walk of the bucket names.
const (
	// FindingBroken: a record's SHA-256 is not the next one's prev_hash,
	// or the seqs skip (a record removed from the middle, or changed).
	FindingBroken = "broken"
	// FindingDoesNotCount: a decision's record does not count by the one
	// rule: its document does not name it, a signature does not verify
	// against the passkeys the account's chain recorded, or it is
	// unsigned where the account had declared decisions off.
	FindingDoesNotCount = "does_not_count"
	// FindingEvidenceDiffers: an evidence body does not hash to the
	// SHA-256 its key names.
	FindingEvidenceDiffers = "evidence_differs"
)

// EntityReport is one chain as the bucket holds it.
type EntityReport struct {
	AccountID int64 `json:"account_id"`
	EntityID  int64 `json:"entity_id"`
	Records   int   `json:"records"`
	// Findings, first the first: none means intact.
	Findings  []Finding  `json:"findings"`
	Decisions []Decision `json:"decisions"`
}

// Decision is a decision's record as the verifier reads it.
type Decision struct {
	Seq              int64  `json:"seq"`
	Action           string `json:"action"`
	OperatorID       int64  `json:"operator_id"`
	SecondApproverID *int64 `json:"second_approver_id,omitempty"`
	// Identity is how the operator is known: passkey (signed), declared,
	// or session.
	Identity string `json:"identity"`
	// Dossier is the dossier's hash the decision was made on (its
	// document's seen, the record's seen_etag).
	Dossier string `json:"dossier"`
	At      string `json:"at"`
	// Counts by the one rule (a session's record: its chain is its proof).
	Counts bool `json:"counts"`
}

// AccountReport is what is the account's rather than one chain's: its
// manifests and its evidence.
type AccountReport struct {
	AccountID int64     `json:"account_id"`
	Manifests int       `json:"manifests"`
	Evidence  int       `json:"evidence"`
	Findings  []Finding `json:"findings"`
}

// Walk is a bucket walk's output, one report at a time: each account's
// chains (entity 0, its own, first), then the account's report.
type Walk struct {
	Entity  func(EntityReport) error
	Account func(AccountReport) error
}

// Bucket checks a copy of the records bucket alone, as of now, against the
// relying party cfg; it reports as it goes and returns the number of
// findings. err is a failure to read the copy or one the reports returned.
func Bucket(ctx context.Context, r BucketReader, cfg passkey.Config, now time.Time, out Walk) (int, error) {
	accounts, err := numbered(ctx, r, "audit/", "manifests/", "evidence/")
	if err != nil {
		return 0, err
	}
	total := 0
	for _, a := range accounts {
		n, err := bucketAccount(ctx, r, cfg, now, a, out)
		total += n
		if err != nil {
			return total, fmt.Errorf("account %d: %w", a, err)
		}
	}
	return total, nil
}

// bucketAccount checks one account: its own chain first (what every
// decision is judged by), then each entity's, then its evidence and
// manifests.
func bucketAccount(ctx context.Context, r BucketReader, cfg passkey.Config, now time.Time, accountID int64, out Walk) (int, error) {
	m, err := ReadManifests(ctx, r, accountID, now)
	if err != nil {
		return 0, err
	}
	entities, err := numbered(ctx, r, fmt.Sprintf("audit/%d/", accountID))
	if err != nil {
		return 0, err
	}
	for e := range m.Heads {
		entities = append(entities, e) // a trail gone whole is named from its manifests
	}
	entities = append(entities, 0)
	slices.Sort(entities)
	entities = slices.Compact(entities)
	own, err := accountChain(ctx, r, accountID)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, e := range entities {
		rep, err := walkChain(ctx, r, chainCheck{cfg: cfg, account: own, manifests: &m, now: now}, accountID, e)
		if err != nil {
			return total, fmt.Errorf("entity %d: %w", e, err)
		}
		total += len(rep.Findings)
		if err := out.Entity(rep); err != nil {
			return total, err
		}
	}
	acct := AccountReport{AccountID: accountID, Findings: m.Findings, Manifests: m.Count}
	if acct.Evidence, acct.Findings, err = bucketEvidence(ctx, r, accountID, acct.Findings); err != nil {
		return total, err
	}
	total += len(acct.Findings)
	return total, out.Account(acct)
}

// accountChain is what the account's own locked chain recorded: its
// intact prefix, as a closure's belief reads it.
func accountChain(ctx context.Context, r Reader, accountID int64) (passkey.AccountChain, error) {
	links, brk, err := LockedChain(ctx, r, accountID, 0)
	if err != nil {
		return passkey.AccountChain{}, fmt.Errorf("the account's own chain: %w", err)
	}
	return passkey.AccountOf(intactPrefix(links, brk)), nil
}

// numbered is the numeric folder names under each prefix, merged and
// sorted; a folder named otherwise is no account's or entity's, and left
// out.
func numbered(ctx context.Context, r BucketReader, prefixes ...string) ([]int64, error) {
	var out []int64
	for _, p := range prefixes {
		names, err := r.Folders(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", p, err)
		}
		for _, n := range names {
			if id, err := strconv.ParseInt(n, 10, 64); err == nil && id >= 0 {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
