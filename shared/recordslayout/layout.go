// Package recordslayout is where each object sits in the records bucket and
// what a daily run's manifest says: the keys shared/auditexport writes under
// and shared/verify reads, kept apart from both so that either can import it.
//
// The layout (records README, "What is kept, where, for how long"):
//
//	audit/<account>/<entity>/<seq, 20 digits>.txt
//	    one audit record: its canonical form (auditchain.Canonical), exactly
//	    the bytes hashed, so the object's SHA-256 is the record's hash and
//	    its prev_hash field links it to the object before it.
//	evidence/<account>/<check>/<sha256>
//	    a provider's answer, the bytes as received; the key names their hash.
//	manifests/<account>/<run time, 20060102T150405Z>.json
//	    a daily run: every chain head that moved since the run before (or
//	    every head on the first), the objects the run itself wrote, and
//	    those it renewed; and the account's manifest before it, by key and
//	    the SHA-256 of its bytes, so the manifests are one chain.
//
// Each version is locked at its write to the date its record's law asks
// (domain.RecordLockUntil) and tagged with the years that lock runs; a
// record still needed when its lock nears its end is written again as a
// new version locked to a later date (auditexport's renewal), and once its
// last lock ended the bucket's lifecycle deletes it. A key's versions all
// hold the record's bytes; one with other bytes is a rewrite.
//
// A regulator verifies a trail from the bucket alone: list
// audit/<account>/<entity>/, read each object's first version, check that
// its SHA-256 is the prev_hash of the next (the first's is empty) and that
// the seqs run 1, 2, 3 … without a gap; the newest manifest naming the
// entity must name one of them as its head, each manifest names the one
// listed before it, and every object a manifest lists is there until the
// date it gives. verify.LockedChain is the check of the trail itself,
// verify.ReadManifests of the manifests, verify.Bucket of a whole copy.
package recordslayout

import (
	"fmt"
	"time"
)

// ManifestFormat names the manifest's format and its version. v2 links
// each manifest to the one before (Previous) and dates what it lists
// (KeepUntil); v1, before, did neither, and is read as the start of the
// account's manifests.
const ManifestFormat = "evs-records-manifest/v2"

// ManifestFormatV1 is the format before the manifests were linked.
const ManifestFormatV1 = "evs-records-manifest/v1"

// RecordKey is the object of an audit record: its chain and seq; the
// fixed width sorts a chain's objects in seq order.
func RecordKey(accountID, entityID, seq int64) string {
	return fmt.Sprintf("%s%020d.txt", ChainPrefix(accountID, entityID), seq)
}

// ChainPrefix starts the keys of a chain's records.
func ChainPrefix(accountID, entityID int64) string {
	return fmt.Sprintf("audit/%d/%d/", accountID, entityID)
}

// EvidencePrefix starts the keys of a check's evidence: one key per body
// ever received for the check, named by its SHA-256.
func EvidencePrefix(accountID, checkID int64) string {
	return fmt.Sprintf("evidence/%d/%d/", accountID, checkID)
}

// EvidenceKey is the object of a provider's answer.
func EvidenceKey(accountID, checkID int64, sha256Hex string) string {
	return EvidencePrefix(accountID, checkID) + sha256Hex
}

// ManifestPrefix starts an account's manifests, oldest first.
func ManifestPrefix(accountID int64) string { return fmt.Sprintf("manifests/%d/", accountID) }

// ManifestKey is the manifest of an account's run at a time.
func ManifestKey(accountID int64, at time.Time) string {
	return ManifestPrefix(accountID) + at.UTC().Format("20060102T150405Z") + ".json"
}

// Manifest is a daily run's account of what it found and wrote.
type Manifest struct {
	Format    string `json:"format"`
	AccountID int64  `json:"account_id"`
	RunAt     string `json:"run_at"`
	// Previous is the account's manifest before this one: its key and the
	// SHA-256 of its bytes (null on the account's first). A manifest
	// removed, or rewritten, breaks the link of the one after it.
	Previous *ManifestObject `json:"previous"`
	// Since is the run before's time: heads that moved after it (less a
	// margin) are listed. Empty on an account's first run: every head.
	Since string         `json:"since,omitempty"`
	Heads []ManifestHead `json:"heads"`
	// Written are the objects this run wrote that the streams had not:
	// what it caught up on.
	Written []ManifestObject `json:"written"`
	// Renewed are the locked copies this run wrote again, as new
	// versions locked to a later date, to keep them as long as they must
	// be.
	Renewed []ManifestObject `json:"renewed,omitempty"`
}

// ManifestHead is a chain's head at the run.
type ManifestHead struct {
	EntityID     int64  `json:"entity_id"`
	Seq          int64  `json:"seq"`
	Hash         string `json:"hash"`
	LastActionID string `json:"last_action_id"`
	At           string `json:"at"`
	// KeepUntil is the date the run would lock the head's trail to
	// (RFC 3339): until then, its copies missing from the bucket were
	// removed, not expired.
	KeepUntil string `json:"keep_until,omitempty"`
}

// ManifestObject is an object and the SHA-256 of its bytes.
type ManifestObject struct {
	Key    string `json:"key"`
	SHA256 string `json:"sha256"`
	// KeepUntil is the date the object was locked to (RFC 3339; empty in
	// v1 and for a manifest's Previous: kept as long as the manifests).
	KeepUntil string `json:"keep_until,omitempty"`
}
