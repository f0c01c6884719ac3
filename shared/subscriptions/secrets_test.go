package subscriptions_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/subscriptions"
)

func TestSecretShownOnce(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	a := w.create(t, "https://a.example.com/evs")
	b := w.create(t, "https://b.example.com/evs")
	if a.Secret == b.Secret || !secretPattern.MatchString(a.Secret) {
		t.Errorf("secrets %q, %q", a.Secret, b.Secret)
	}
	rotated, err := w.svc.Rotate(ctx, w.actor(w.manager), b.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !secretPattern.MatchString(rotated.Secret) || rotated.Secret == b.Secret {
		t.Errorf("rotation shows secret %q", rotated.Secret)
	}
	list, err := w.svc.List(ctx, w.actor(w.manager))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("listed %+v", list)
	}
	for _, ep := range list {
		if ep.Secret != "" || ep.PreviousSecret != "" {
			t.Errorf("List shows the secrets of %d", ep.ID)
		}
	}
	if list[1].PreviousExpiresAt == nil {
		t.Errorf("List hides when the rotation ends")
	}
	updated, err := w.svc.Update(ctx, w.actor(w.manager), a.ID, subscriptions.Changes{Description: new("renamed")})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Secret != "" || updated.PreviousSecret != "" {
		t.Errorf("Update shows the secret")
	}
	// The delivery function still reads them.
	if got := w.stored(t, a.ID); got.Secret != a.Secret {
		t.Errorf("stored secret changed")
	}
	if got := w.stored(t, b.ID); got.Secret != rotated.Secret || got.PreviousSecret != b.Secret {
		t.Errorf("stored secrets after rotation: %q, %q", got.Secret, got.PreviousSecret)
	}
}

func TestRotate(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	tests := []struct {
		name    string
		overlap time.Duration
		until   time.Duration // the old secret's end; 0 when refused
	}{
		{"default overlap", 0, subscriptions.DefaultOverlap},
		{"an hour", time.Hour, time.Hour},
		{"the longest", subscriptions.MaxOverlap, subscriptions.MaxOverlap},
		{"negative", -time.Hour, 0},
		{"too long", subscriptions.MaxOverlap + time.Second, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ep := w.create(t, "https://hooks.example.com/evs")
			w.clock = w.clock.Add(time.Minute)
			now := w.clock
			a := w.actor(w.manager)
			got, err := w.svc.Rotate(ctx, a, ep.ID, tc.overlap)
			stored := w.stored(t, ep.ID)
			if tc.until == 0 {
				if code(err) != domain.ECodeInvalid || len(domain.ErrorFields(err)["overlap"]) == 0 {
					t.Errorf("err = %v, want overlap refused", err)
				}
				if stored.Secret != ep.Secret || stored.Version != 1 {
					t.Errorf("rotated anyway")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !secretPattern.MatchString(got.Secret) || got.Secret == ep.Secret || stored.Secret != got.Secret || stored.PreviousSecret != ep.Secret ||
				stored.PreviousExpiresAt == nil || !stored.PreviousExpiresAt.Equal(now.Add(tc.until)) || stored.Version != 2 {
				t.Errorf("rotated %+v, stored %+v", got, stored)
			}
			for _, at := range []struct {
				at   time.Time
				want []string
			}{
				{now, []string{got.Secret, ep.Secret}},
				{now.Add(tc.until - time.Millisecond), []string{got.Secret, ep.Secret}},
				{now.Add(tc.until), []string{got.Secret}},
				{now.Add(tc.until + time.Hour), []string{got.Secret}},
			} {
				if s := stored.SigningSecrets(at.at); !slices.Equal(s, at.want) {
					t.Errorf("signing secrets at +%s: %d, want %d", at.at.Sub(now), len(s), len(at.want))
				}
			}
			rec := w.audit(t, a.ActionID)
			if rec.Action != domain.ActionEndpointRotate || rec.After["previous_secret_expires_at"] != domain.FormatTime(now.Add(tc.until)) {
				t.Errorf("audit %+v", rec)
			}
			noSecrets(t, rec, got.Secret, ep.Secret)
		})
	}
	t.Run("twice: the latest old secret signs", func(t *testing.T) {
		ep := w.create(t, "https://hooks.example.com/evs")
		first, err := w.svc.Rotate(ctx, w.actor(w.manager), ep.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		second, err := w.svc.Rotate(ctx, w.actor(w.manager), ep.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if s := w.stored(t, ep.ID).SigningSecrets(w.clock); !slices.Equal(s, []string{second.Secret, first.Secret}) {
			t.Errorf("signing with %d secrets", len(s))
		}
	})
}
