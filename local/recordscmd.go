package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/verify"
)

// errFindings is records verify's failure: the copy holds findings, each
// printed.
var errFindings = errors.New("records verify: the copy has findings")

// cmdRecords is records verify: a regulator's verifier of a copy of the
// records bucket (shared/verify.Bucket), offline: no table, no service.
func cmdRecords(ctx context.Context, sub string, args []string) error {
	return runRecordsVerify(ctx, args, os.Stdout)
}

func runRecordsVerify(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("records verify", flag.ContinueOnError)
	dir := fs.String("dir", "", "a copy of the records bucket in a directory (records.Dir's layout; default: the local system's records)")
	bucket := fs.String("bucket", "", "a records bucket on S3, read with your own AWS credentials (read-only suffices)")
	region := fs.String("region", "", "the bucket's region, e.g. the replica's (default: your AWS configuration's)")
	rpID := fs.String("rp-id", "", "the relying party the passkeys are bound to (default: the local system's)")
	origins := fs.String("origin", "", "the origins the passkeys signed from, comma-separated (default: the local system's)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *dir != "" && *bucket != "" {
		return usageError{"records verify: --dir or --bucket, not both"}
	}
	if *region != "" && *bucket == "" {
		return usageError{"records verify: --region is the --bucket's"}
	}
	if *dir == "" && *bucket == "" {
		*dir = devstack.RecordsDir() // the local system's, as its other commands find its data
	}
	var r verify.BucketReader = records.Dir{Root: *dir}
	if *bucket != "" {
		var opts []func(*config.LoadOptions) error
		if *region != "" {
			opts = append(opts, config.WithRegion(*region))
		}
		cfg, err := config.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return fmt.Errorf("records verify: load the AWS configuration: %w", err)
		}
		r = boot.RecordsBucketNamed(cfg, *bucket)
	} else if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		return fmt.Errorf("records verify: %s is not a directory", *dir)
	}
	cfg := relyingParty(*rpID, *origins)
	fmt.Fprintf(stdout, "relying party: %s, origins %s (%s)\n", cfg.RPID, strings.Join(cfg.Origins, " "), rpSource(*rpID, *origins))
	n, err := verify.Bucket(ctx, r, cfg, time.Now(), verify.Walk{
		Entity:  func(e verify.EntityReport) error { return printEntity(stdout, e) },
		Account: func(a verify.AccountReport) error { return printAccount(stdout, a) },
	})
	if err != nil {
		return fmt.Errorf("records verify: %w", err)
	}
	if n > 0 {
		fmt.Fprintf(stdout, "%d finding(s)\n", n)
		return errFindings
	}
	fmt.Fprintln(stdout, "intact: no finding")
	return nil
}

// relyingParty is the flags' relying party, else the local system's.
func relyingParty(rpID, origins string) passkey.Config {
	cfg := localPasskeys()
	if rpID != "" {
		cfg.RPID = rpID
	}
	if origins != "" {
		cfg.Origins = strings.Split(origins, ",")
	}
	return cfg
}

func rpSource(rpID, origins string) string {
	if rpID != "" || origins != "" {
		return "--rp-id, --origin"
	}
	return "the local system's: give --rp-id and --origin for a stage's"
}

// printEntity prints a chain: intact or its first finding, then each
// decision with its operator, how known, the dossier hash and time.
func printEntity(w io.Writer, e verify.EntityReport) error {
	state := "intact"
	if len(e.Findings) > 0 {
		f := e.Findings[0]
		state = fmt.Sprintf("%s: %s", f.Kind, f.Message)
		if len(e.Findings) > 1 {
			state += fmt.Sprintf(" (and %d more)", len(e.Findings)-1)
		}
	}
	_, err := fmt.Fprintf(w, "entity %d/%d: %d record(s), %s\n", e.AccountID, e.EntityID, e.Records, state)
	for _, d := range e.Decisions {
		if err != nil {
			return err
		}
		by := fmt.Sprintf("operator %d", d.OperatorID)
		if d.SecondApproverID != nil {
			by += fmt.Sprintf(" and %d", *d.SecondApproverID)
		}
		counts := ""
		if !d.Counts {
			counts = ", DOES NOT COUNT"
		}
		dossier := d.Dossier
		if dossier == "" {
			dossier = "none"
		}
		_, err = fmt.Fprintf(w, "  seq %d %s by %s, %s, dossier %s, at %s%s\n", d.Seq, d.Action, by, d.Identity, dossier, d.At, counts)
	}
	return err
}

// printAccount prints the account's manifests and evidence.
func printAccount(w io.Writer, a verify.AccountReport) error {
	state := "intact"
	if len(a.Findings) > 0 {
		state = fmt.Sprintf("%s: %s", a.Findings[0].Kind, a.Findings[0].Message)
		if len(a.Findings) > 1 {
			state += fmt.Sprintf(" (and %d more)", len(a.Findings)-1)
		}
	}
	_, err := fmt.Fprintf(w, "account %d: manifests %d, evidence bodies %d, %s\n", a.AccountID, a.Manifests, a.Evidence, state)
	return err
}
