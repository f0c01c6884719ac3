package main

import (
	"context"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/records"
)

// stdio serialises the tests that swap os.Stdout and os.Stderr.
var stdio sync.Mutex

// runCaptured runs the command line in-process and returns what it printed
// on stdout and on stderr.
func runCaptured(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	stdio.Lock()
	defer stdio.Unlock()
	capture := func(f **os.File) (restore func() string) {
		r, w, perr := os.Pipe()
		if perr != nil {
			t.Fatal(perr)
		}
		old := *f
		*f = w
		var out []byte
		done := make(chan struct{})
		go func() { out, _ = io.ReadAll(r); close(done) }()
		return func() string {
			w.Close()
			*f = old
			<-done
			return string(out)
		}
	}
	outDone, errDone := capture(&os.Stdout), capture(&os.Stderr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = run(ctx, args)
	return outDone(), errDone(), err
}

// TestPortalLinkCommand: portal link prints a link the settings area
// redeems, on the local store (leading to the local gateway) and on a
// stage (leading to its SETTINGS_BASE_URL); the token is printed, never
// logged.
func TestPortalLinkCommand(t *testing.T) {
	ctx := context.Background()
	st, _ := cliStore(t)
	t.Setenv("SETTINGS_BASE_URL", "")
	t.Setenv("PORT", "3999")
	t.Setenv("LOG_LEVEL", "debug")
	now := domain.Now()
	acct, err := st.CreateAccount(ctx, "Portal CLI", now)
	if err != nil {
		t.Fatal(err)
	}
	op, err := st.CreateOperator(ctx, acct.ID, "Sara", []string{domain.PermAccountSettingsManage}, now)
	if err != nil {
		t.Fatal(err)
	}
	gone, err := st.CreateOperator(ctx, acct.ID, "Gone", nil, now)
	if err != nil {
		t.Fatal(err)
	}
	gone.DisabledAt = &now
	if err := st.UpdateOperator(ctx, gone, domain.AuditRecord{AccountID: acct.ID, ActionID: "disable-gone", Action: domain.ActionOperatorDisable, At: now}); err != nil {
		t.Fatal(err)
	}
	p := &portal.Service{Store: st, Clock: domain.SystemClock}
	a, o := strconv.FormatInt(acct.ID, 10), strconv.FormatInt(op.ID, 10)

	// The stage: its admin function served over the Lambda API, with the
	// stage's own settings address.
	adm, err := boot.As[boot.AdminHandler]("admin", boot.Deps{Records: records.Dir{Root: t.TempDir()}, Store: st, Log: quietLogger(), Clock: domain.SystemClock,
		Deliveries: &lazyQueue{}, SettingsURL: "https://abc.execute-api.me-central-1.amazonaws.com/dev"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newStageAPI(ctx, adm, nil).Handler())
	defer srv.Close()
	t.Setenv(stackOutputsVar, localStageOutputs())
	for k, v := range map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_DISABLED": "true", "EVS_ACTOR": "ops@example.com"} {
		t.Setenv(k, v)
	}
	stage := []string{"--stage", "test", "--endpoint-url", srv.URL}

	tests := []struct {
		name string
		args []string
		base string
	}{
		{"local", []string{"portal", "link", "--account", a, "--operator", o}, "http://localhost:3999/console/enrol"},
		{"stage", append([]string{"portal", "link", "--account", a, "--operator", o}, stage...), "https://abc.execute-api.me-central-1.amazonaws.com/dev/console/enrol"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, err := runCaptured(t, tc.args...)
			if err != nil {
				t.Fatalf("%v (stderr: %s)", err, stderr)
			}
			link := strings.TrimSpace(stdout)
			u, err := url.Parse(link)
			if err != nil || strings.Contains(link, "\n") {
				t.Fatalf("stdout = %q", stdout)
			}
			token := u.Query().Get("token")
			if base := strings.TrimSuffix(link, "?"+u.RawQuery); base != tc.base || !strings.HasPrefix(token, portal.LinkPrefix) {
				t.Errorf("link = %s, want %s?token=%s…", link, tc.base, portal.LinkPrefix)
			}
			if strings.Contains(stderr, token) || !strings.Contains(stderr, "operator "+o+" enrols a passkey with it, once, until ") {
				t.Errorf("stderr = %s", stderr)
			}
			if _, s, err := p.Redeem(ctx, token); err != nil || s.Operator.ID != op.ID {
				t.Errorf("redeem: %+v, %v", s, err)
			}
		})
	}

	refusals := []struct {
		name, refusal string
		args          []string
	}{
		{"a disabled operator", "InvalidRequest", []string{"portal", "link", "--account", a, "--operator", strconv.FormatInt(gone.ID, 10)}},
		{"an unknown operator on the stage", "NotFound", append([]string{"portal", "link", "--account", a, "--operator", "987654"}, stage...)},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCaptured(t, tc.args...)
			if r, ok := asRefusal(err); !ok || r.Name != tc.refusal {
				t.Errorf("%v, want %s", err, tc.refusal)
			}
		})
	}
	for _, args := range [][]string{{"portal", "link", "--account", a}, {"portal", "mint", "--operator", o}, append([]string{"portal", "link", "--operator", o}, stage...)} {
		if _, _, err := runCaptured(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		} else if _, ok := err.(usageError); !ok {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
