package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/evs-kyb/evs/shared/admin"
)

// cmdEvidence prints a check's kept provider answer (the raw bytes on
// stdout, how they came on stderr) and verifies its hash here, over the
// bytes that arrived: a mismatch is an error naming both hashes.
func cmdEvidence(ctx context.Context, args []string) error {
	return runEvidence(ctx, args, os.Stdout, os.Stderr)
}

func runEvidence(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newAdminCmd("evidence")
	check := idFlag(c.fs, "check", "the check id (required)")
	account := idFlag(c.fs, "account", "account id (default on the local store: the demo account)")
	if err := parseFlags(c.fs, args); err != nil {
		return err
	}
	if *check == 0 {
		return usageError{"evidence: --check is required"}
	}
	acct, err := c.account(*account)
	if err != nil {
		return err
	}
	var out struct {
		Evidence admin.EvidenceView `json:"evidence"`
	}
	if err := c.send(ctx, map[string]any{"command": "evidence.get", "account_id": acct, "check_id": *check}, &out); err != nil {
		return err
	}
	ev := out.Evidence
	body, err := base64.StdEncoding.DecodeString(ev.BodyBase64)
	if err != nil {
		return fmt.Errorf("evidence of check %d: the body is not base64: %w", *check, err)
	}
	fmt.Fprintf(stderr, "check %d: %s %s %s → HTTP %d at %s, %d bytes, sha256 %s\n",
		ev.CheckID, ev.Provider, ev.Request.Method, ev.Request.URL, ev.HTTPStatus, ev.ReceivedAt, ev.Size, ev.SHA256)
	if _, err := stdout.Write(body); err != nil {
		return err
	}
	if err := verifyEvidence(ev, body); err != nil {
		return fmt.Errorf("evidence of check %d: %w", *check, err)
	}
	fmt.Fprintln(stderr, "verified: the bytes hash to the sha256 recorded when they were received, in the evidence and in the check's result")
	return nil
}

// verifyEvidence checks body against the hash and size recorded on
// receipt, and against the body the records store locked then, naming
// what differs.
func verifyEvidence(ev admin.EvidenceView, body []byte) error {
	sum := sha256.Sum256(body)
	got := hex.EncodeToString(sum[:])
	switch {
	case got != ev.SHA256:
		return fmt.Errorf("does not verify: sha256 mismatch: recorded %s, the stored bytes hash to %s", ev.SHA256, got)
	case len(body) != ev.Size:
		return fmt.Errorf("does not verify: size mismatch: recorded %d bytes, stored %d", ev.Size, len(body))
	case !ev.Verified:
		return fmt.Errorf("does not verify: the admin function computed sha256 %s, recorded %s", ev.ComputedSHA256, ev.SHA256)
	case !ev.MatchesCheck:
		return fmt.Errorf("does not verify: the check's result recorded sha256 %s and %d bytes, the evidence item %s and %d: the evidence was replaced", ev.CheckSHA256, ev.CheckSize, ev.SHA256, ev.Size)
	case ev.Locked != nil && len(ev.Locked.Findings) > 0:
		// Body, hash and the check's hash rewritten together agree with
		// one another: only the body locked on receipt, which no role can
		// rewrite, tells them from the answer received.
		f := ev.Locked.Findings[0]
		return fmt.Errorf("does not verify against its locked copy %s (%s): %s", f.Key, f.Kind, f.Message)
	}
	return nil
}
