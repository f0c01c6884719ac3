package verify_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/verify"
)

// manifested locks entity 7's chain of three records and two linked
// manifests, as the daily run writes them: the first names the head at
// seq 2 and lists the record it caught up on, the second the head at 3.
// It returns the chain and the manifests' keys.
func manifested(t *testing.T, rec records.Dir, keep time.Time) (auditchain.Chain, []string) {
	t.Helper()
	c := lockedChain(t, rec, 7, 3, time.Time{})
	until := keep.Format(time.RFC3339)
	var prev *recordslayout.ManifestObject
	var keys []string
	for i, l := range c.Records[1:] {
		m := recordslayout.Manifest{Format: recordslayout.ManifestFormat, AccountID: acct, RunAt: t0.Add(time.Duration(i) * 24 * time.Hour).Format(time.RFC3339),
			Previous: prev, Heads: []recordslayout.ManifestHead{{EntityID: 7, Seq: l.Seq, Hash: l.Hash, LastActionID: l.ActionID, At: l.At, KeepUntil: until}},
			Written: []recordslayout.ManifestObject{{Key: recordslayout.RecordKey(acct, 7, l.Seq), SHA256: l.Hash, KeepUntil: until}}}
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		key := recordslayout.ManifestKey(acct, t0.Add(time.Duration(i)*24*time.Hour))
		lock(t, rec, key, body)
		prev = &recordslayout.ManifestObject{Key: key, SHA256: sha(body)}
		keys = append(keys, key)
	}
	return c, keys
}

// TestManifestsNameWhatTheTrailCannot: a manifest removed or rewritten
// breaks the link of the one after it; an object a manifest lists, a tail
// or a whole trail gone from the bucket is named against the manifests —
// until the date they gave it, after which it expired.
func TestManifestsNameWhatTheTrailCannot(t *testing.T) {
	later := t0.Add(5 * 365 * 24 * time.Hour)
	cases := []struct {
		name   string
		keep   time.Time
		tamper func(t *testing.T, rec records.Dir, manifests []string)
		want   []string
	}{
		{"intact", later, nil, nil},
		{"a manifest deleted", later, func(t *testing.T, rec records.Dir, m []string) { remove(t, rec, m[0]) },
			[]string{verify.FindingManifestGap}},
		{"a manifest rewritten", later, func(t *testing.T, rec records.Dir, m []string) { rewrite(t, rec, m[0], []byte(`{"account_id":1}`)) },
			[]string{verify.FindingManifestGap, verify.FindingManifestGap}}, // its own format, and the next one's link
		{"an object a manifest lists deleted", later, func(t *testing.T, rec records.Dir, _ []string) { remove(t, rec, recordslayout.RecordKey(acct, 7, 2)) },
			[]string{verify.FindingListedGone}},
		{"the tail deleted", later, func(t *testing.T, rec records.Dir, _ []string) { remove(t, rec, recordslayout.RecordKey(acct, 7, 3)) },
			[]string{verify.FindingListedGone, verify.FindingLockedBehindManifest}},
		{"the whole trail deleted", later, func(t *testing.T, rec records.Dir, _ []string) {
			for seq := int64(1); seq <= 3; seq++ {
				remove(t, rec, recordslayout.RecordKey(acct, 7, seq))
			}
		}, []string{verify.FindingListedGone, verify.FindingListedGone, verify.FindingTrailGone}},
		{"the whole trail gone after its date", t0.Add(time.Hour), func(t *testing.T, rec records.Dir, _ []string) {
			for seq := int64(1); seq <= 3; seq++ {
				remove(t, rec, recordslayout.RecordKey(acct, 7, seq))
			}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			rec := records.Dir{Root: t.TempDir()}
			c, keys := manifested(t, rec, tc.keep)
			if tc.tamper != nil {
				tc.tamper(t, rec, keys)
			}
			now := t0.Add(30 * 24 * time.Hour)
			m, err := verify.ReadManifests(ctx, rec, acct, now)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := verify.Chain(ctx, rec, c, verify.Retention{Now: now, Manifests: &m})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range append(m.Findings, rep.Findings...) {
				if f.Kind != verify.FindingHeadBehind { // DynamoDB's head, beside the point here
					got = append(got, f.Kind)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v: %+v %+v", got, tc.want, m.Findings, rep.Findings)
			}
		})
	}
}

func remove(t *testing.T, rec records.Dir, key string) {
	t.Helper()
	if err := os.Remove(filepath.Join(rec.Root, filepath.FromSlash(key))); err != nil {
		t.Fatal(err)
	}
}

func rewrite(t *testing.T, rec records.Dir, key string, body []byte) {
	t.Helper()
	path := filepath.Join(rec.Root, filepath.FromSlash(key))
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, body, 0o400); err != nil {
		t.Fatal(err)
	}
}
