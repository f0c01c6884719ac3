package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// cmdSimWebhook posts a screening webhook signed with the local secret, as
// the screening provider would after a later re-screen.
func cmdSimWebhook(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("sim webhook", flag.ContinueOnError)
	ref := fs.String("reference", "", "the check's screening reference, evs-<account>-<check>")
	outcome := fs.String("outcome", "clear", "clear, hit or needs_review")
	url := fs.String("url", "http://127.0.0.1:"+envDefault("PORT", "3000")+"/webhooks/opensanctions", "where to post")
	id := fs.String("id", "", "webhook-id (a fresh one when empty; repeat one to replay)")
	name := fs.String("name", "", "the name the matches carry")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o := sim.Outcome(*outcome)
	if *ref == "" || (o != sim.Clear && o != sim.Hit && o != sim.NeedsReview) {
		return usageError{"sim webhook: --reference and --outcome clear|hit|needs_review are required"}
	}
	secrets, err := webhooks.ParseSecrets(localWebhookSecret())
	if err != nil {
		return err
	}
	now := time.Now()
	d, err := sim.Send(ctx, nil, *url, secrets[0], *id, sim.NewScreeningEvent(*ref, o, *name, now), now)
	if err != nil {
		return err
	}
	fmt.Printf("%s\t%d\t%s", d.ID, d.Status, d.Body)
	if d.Status >= 300 {
		return fmt.Errorf("the service answered %d", d.Status)
	}
	return nil
}
