package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// Finding kinds the manifests name: what the daily runs recorded that the
// bucket no longer shows. A locked trail says nothing of a tail or a whole
// trail taken away with its DynamoDB items; the manifests, each naming the
// one before, do.
const (
	// FindingManifestGap: a manifest does not name the one listed before
	// it (removed, or another put in between), or names it with a SHA-256
	// its bytes do not have (rewritten).
	FindingManifestGap = "manifest_gap"
	// FindingListedGone: an object a manifest lists is not in the bucket
	// before the date the manifest gives it.
	FindingListedGone = "listed_object_gone"
	// FindingLockedBehindManifest: the chain's locked copies end before the
	// head a manifest recorded, or hold another record at its seq.
	FindingLockedBehindManifest = "locked_behind_manifest"
	// FindingTrailGone: a manifest names the entity's head, and no copy
	// of its trail is in the bucket (nor, for audit.verify, in DynamoDB).
	FindingTrailGone = "trail_gone"
)

// Manifests is what an account's manifests say, read from the bucket and
// checked as one chain: the newest head each names per entity, and the
// findings of the manifests themselves (gaps, objects listed and gone).
type Manifests struct {
	AccountID int64
	// Count is how many manifests were read.
	Count int
	// Heads is the newest head the manifests name for each entity, with
	// the manifest naming it.
	Heads    map[int64]ListedHead
	Findings []Finding
}

// ListedHead is a chain's head as a manifest recorded it.
type ListedHead struct {
	recordslayout.ManifestHead
	Manifest string
}

// ReadManifests reads an account's manifests, oldest first (their keys
// sort by run time): each must name the one before it by key and SHA-256
// (the first none; v1 manifests, written before the link, only before any
// v2), and every object it wrote or renewed must still be there, holding
// the bytes it listed, until the date it gave. now is the check's time.
func ReadManifests(ctx context.Context, r Reader, accountID int64, now time.Time) (Manifests, error) {
	m := Manifests{AccountID: accountID, Heads: map[int64]ListedHead{}, Findings: []Finding{}}
	keys, err := r.List(ctx, recordslayout.ManifestPrefix(accountID))
	if err != nil {
		return m, fmt.Errorf("list the manifests of account %d: %w", accountID, err)
	}
	var prev *recordslayout.ManifestObject
	linked := false // a v2 manifest seen: no v1 may follow
	checked := map[string]bool{}
	m.Count = len(keys)
	for _, key := range keys {
		obj, err := r.Get(ctx, key)
		if err != nil {
			return m, fmt.Errorf("read manifest %s: %w", key, err)
		}
		f := Finding{Key: key, VersionID: obj.VersionID, Locked: lockedDay(obj)}
		var man recordslayout.Manifest
		if err := json.Unmarshal(obj.Body, &man); err != nil || man.AccountID != accountID {
			f.Kind, f.Message = FindingUnreadable, fmt.Sprintf("the manifest %s is not a manifest of account %d", key, accountID)
			m.Findings = append(m.Findings, f)
			prev = &recordslayout.ManifestObject{Key: key, SHA256: obj.SHA256}
			continue
		}
		if why := linkProblem(man, prev, linked); why != "" {
			f.Kind, f.Message = FindingManifestGap, fmt.Sprintf("the manifest %s %s: a manifest was removed, rewritten or put in between", key, why)
			m.Findings = append(m.Findings, f)
		}
		linked = linked || man.Format != recordslayout.ManifestFormatV1
		prev = &recordslayout.ManifestObject{Key: key, SHA256: obj.SHA256}
		for _, h := range man.Heads {
			m.Heads[h.EntityID] = ListedHead{ManifestHead: h, Manifest: key}
		}
		if err := m.listed(ctx, r, key, append(man.Written, man.Renewed...), checked, now); err != nil {
			return m, err
		}
	}
	return m, nil
}

// linkProblem says how a manifest fails to name the one before it, prev
// ("" when it names it, or is a v1 manifest before any linked one).
func linkProblem(man recordslayout.Manifest, prev *recordslayout.ManifestObject, linked bool) string {
	switch {
	case man.Format == recordslayout.ManifestFormatV1 && !linked:
		return ""
	case man.Format != recordslayout.ManifestFormat && man.Format != recordslayout.ManifestFormatV1:
		return fmt.Sprintf("is of format %q, not %q", man.Format, recordslayout.ManifestFormat)
	case man.Format == recordslayout.ManifestFormatV1:
		return "is unlinked (v1) after linked manifests"
	case man.Previous == nil && prev == nil:
		return ""
	case man.Previous == nil:
		return fmt.Sprintf("names no manifest before it, but %s is listed before it", prev.Key)
	case prev == nil:
		return fmt.Sprintf("names %s before it, which is not in the bucket", man.Previous.Key)
	case man.Previous.Key != prev.Key:
		return fmt.Sprintf("names %s before it, but %s is listed before it", man.Previous.Key, prev.Key)
	case man.Previous.SHA256 != prev.SHA256:
		return fmt.Sprintf("names %s with SHA-256 %s, but its bytes hash to %s", prev.Key, auditchain.Short(man.Previous.SHA256), auditchain.Short(prev.SHA256))
	}
	return ""
}

// listed checks the objects a manifest wrote or renewed, each once: there,
// holding the bytes listed, unless the date the manifest gave it passed.
func (m *Manifests) listed(ctx context.Context, r Reader, manifest string, objs []recordslayout.ManifestObject, checked map[string]bool, now time.Time) error {
	for _, o := range objs {
		if checked[o.Key] {
			continue
		}
		checked[o.Key] = true
		obj, err := r.Get(ctx, o.Key)
		if errors.Is(err, fs.ErrNotExist) {
			if kept(o.KeepUntil, now) {
				m.Findings = append(m.Findings, Finding{Kind: FindingListedGone, Key: o.Key,
					Message: fmt.Sprintf("the manifest %s lists %s, which is gone from the bucket before its date (%s)", manifest, o.Key, keepText(o.KeepUntil))})
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s, listed by %s: %w", o.Key, manifest, err)
		}
		if obj.SHA256 != o.SHA256 {
			m.Findings = append(m.Findings, Finding{Kind: FindingRewrittenInBucket, Key: o.Key, VersionID: obj.VersionID, Locked: lockedDay(obj),
				Message: fmt.Sprintf("the manifest %s lists %s with SHA-256 %s; its oldest version hashes to %s", manifest, o.Key, auditchain.Short(o.SHA256), auditchain.Short(obj.SHA256))})
		}
	}
	return nil
}

// Chain is what the manifests say of one chain, given its locked copies
// as read (lockedThrough: the highest seq locked, 0 for none; hashAt: the
// locked record's hash at a seq, ok false when none): the trail gone, its
// copies ending before the head recorded, or another record at its seq.
// Nothing once the date the manifest gave the trail passed.
func (m Manifests) Chain(entityID, lockedThrough int64, hashAt func(seq int64) (string, bool), now time.Time) []Finding {
	h, ok := m.Heads[entityID]
	if !ok || !kept(h.KeepUntil, now) {
		return nil
	}
	f := Finding{Key: h.Manifest, Seq: h.Seq, ActionID: h.LastActionID}
	hash, locked := hashAt(h.Seq)
	switch {
	case lockedThrough == 0:
		f.Kind = FindingTrailGone
		f.Message = fmt.Sprintf("the manifest %s names entity %d's head at seq %d (%s, hash %s), and no locked copy of its trail is in the bucket",
			h.Manifest, entityID, h.Seq, h.LastActionID, auditchain.Short(h.Hash))
	case lockedThrough < h.Seq:
		f.Kind = FindingLockedBehindManifest
		f.Message = fmt.Sprintf("the locked copies of entity %d end at seq %d, before the head at seq %d (%s) the manifest %s recorded: the tail removed",
			entityID, lockedThrough, h.Seq, h.LastActionID, h.Manifest)
	case !locked:
		f.Kind = FindingLockedBehindManifest
		f.Message = fmt.Sprintf("the head at seq %d (%s) the manifest %s recorded for entity %d has no locked copy", h.Seq, h.LastActionID, h.Manifest, entityID)
	case hash != h.Hash:
		f.Kind = FindingLockedBehindManifest
		f.Message = fmt.Sprintf("the locked record at seq %d of entity %d hashes to %s, not the head %s the manifest %s recorded",
			h.Seq, entityID, auditchain.Short(hash), auditchain.Short(h.Hash), h.Manifest)
	default:
		return nil
	}
	return []Finding{f}
}

// kept reports whether an object dated until (RFC 3339; "" for none given:
// as long as the manifests) must still be in the bucket at now.
func kept(until string, now time.Time) bool {
	t, err := time.Parse(time.RFC3339, until)
	return err != nil || now.Before(t)
}

func keepText(until string) string {
	if until == "" {
		return "none given: kept as long as the manifests"
	}
	return until
}
