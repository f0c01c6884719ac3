// Package rehearse rehearses a deploy of the CDK app (infra/) on moto's
// CloudFormation: it starts moto (local/moto/rehearse.sh), runs the pinned
// CDK CLI's bootstrap and deploy of every stack of the app, checks through
// the service APIs that every resource of the catalogue exists as
// declared, then deploys a change and checks it updated in place. make
// rehearse runs it (cmd/rehearse), and make test (TestDeployRehearsal).
package rehearse

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

// Region is where environment-agnostic stacks go; a stack that names
// another region is deployed there, that region bootstrapped too.
const Region = "us-east-1"

// ReplicaRegion is where the records' replica stack goes.
const ReplicaRegion = "eu-central-1"

// Deployed is the context of the first deployment: the production-like
// stage, retained (no context retain=false), its records replicated to a
// second region, as a first real deploy is.
func Deployed() map[string]string {
	return map[string]string{stack.ContextStage: stack.ProdStage, deploy.RecordsReplicaRegion().Parameter: ReplicaRegion}
}

// Changed is the context of the second: the same stage with a setting (a
// function's environment) and the stage's throttling changed.
func Changed() map[string]string {
	c := Deployed()
	c["YenteThreshold"] = "0.75"
	c[stack.ContextThrottleRate] = "50"
	return c
}

// Options configure a rehearsal.
type Options struct {
	// Root is the repository's root; WorkDir a folder of the caller's,
	// for the cloud assemblies and the logs (cdk.log, moto.log).
	Root, WorkDir string
	Log           *slog.Logger
}

// Run rehearses: it returns every failure found, joined, each naming what
// differs from the catalogue.
func Run(ctx context.Context, o Options) error {
	if err := stack.CheckAssets(filepath.Join(o.Root, "build")); err != nil {
		return err
	}
	start := time.Now()
	m, err := startMoto(ctx, o.Root, filepath.Join(o.WorkDir, "moto.log"))
	if err != nil {
		return err
	}
	defer m.stop()
	o.Log.Info("moto started", "endpoint", m.endpoint, "pid", m.pid, "log", m.log)
	c := newCDK(o.Root, m.endpoint, Region, filepath.Join(o.WorkDir, "cdk.log"))

	first, err := deployAndCheck(ctx, o, m.endpoint, c, "first", Deployed(), nil)
	if err != nil {
		return err
	}
	second, err := deployAndCheck(ctx, o, m.endpoint, c, "second", Changed(), first)
	if err != nil {
		return err
	}
	if err := inPlace(first, second); err != nil {
		return err
	}
	o.Log.Info("the change updated every stateful resource in place", "took", time.Since(start).Round(time.Second))
	return nil
}

// deployAndCheck synthesizes the app with the context, bootstraps its
// regions (the first time: no deployment before), deploys every stack and
// checks the result.
func deployAndCheck(ctx context.Context, o Options, endpoint string, c *cdk, name string, context map[string]string, before *deployed) (*deployed, error) {
	bootstrap := before == nil
	t := time.Now()
	assembly := filepath.Join(o.WorkDir, "cdk.out."+name)
	if err := c.synth(ctx, assembly, context); err != nil {
		return nil, err
	}
	stacks, err := stacksOf(assembly, Region)
	if err != nil {
		return nil, err
	}
	o.Log.Info("synthesized", "deployment", name, "stacks", len(stacks), "context", context, "took", time.Since(t).Round(time.Second))
	if bootstrap {
		for _, region := range regionsOf(stacks) {
			if err := c.bootstrap(ctx, o.WorkDir, region); err != nil {
				return nil, err
			}
			o.Log.Info("bootstrapped", "environment", "aws://"+Account+"/"+region)
		}
	}
	t = time.Now()
	if err := c.deploy(ctx, o.WorkDir, assembly); err != nil {
		return nil, err
	}
	o.Log.Info("deployed", "deployment", name, "took", time.Since(t).Round(time.Second))
	d, err := describe(ctx, endpoint, stacks)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, st := range stacks {
		// Created, then updated; a stack the change leaves as it was is
		// not deployed again (CDK skips it) and keeps its status.
		want := "CREATE_COMPLETE"
		if changed, err := before.changed(st); err != nil {
			return nil, err
		} else if changed {
			want = "UPDATE_COMPLETE"
		}
		if d.status[st.Name] != want {
			errs = append(errs, fmt.Errorf("stack %s: %s, want %s", st.Name, d.status[st.Name], want))
		}
	}
	missing, err := d.missing()
	if err != nil {
		return nil, err
	}
	for _, m := range missing {
		errs = append(errs, errors.New(m))
	}
	o.Log.Info("every resource of the templates created", "deployment", name, "resources", len(d.byID), "missing", len(missing))
	for _, ch := range checks() {
		f := &findings{}
		n := ch.run(ctx, d, expect{context: context}, f)
		o.Log.Info("checked "+ch.name, "deployment", name, "count", n, "failures", len(f.errs))
		for _, err := range f.errs {
			errs = append(errs, fmt.Errorf("%s deployment: %w", name, err))
		}
	}
	return d, errors.Join(errs...)
}

// inPlace: every stateful resource of the first deployment is still there
// after the second, under the same physical id.
func inPlace(before, after *deployed) error {
	stateful := stack.StatefulTypes()
	var errs []string
	for id, rs := range before.byID {
		for _, r := range rs {
			if !stateful[r.Type] {
				continue
			}
			// A logical id may be in more than one stack (each region's
			// access logs' bucket): the same stack's is compared.
			i := slices.IndexFunc(after.byID[id], func(a resource) bool { return a.Stack == r.Stack && a.Type == r.Type })
			switch {
			case i < 0:
				errs = append(errs, fmt.Sprintf("%s (%s) of %s is gone", id, r.Type, r.Stack))
			case after.byID[id][i].PhysicalID != r.PhysicalID:
				errs = append(errs, fmt.Sprintf("%s (%s) of %s replaced: %s, was %s", id, r.Type, r.Stack, after.byID[id][i].PhysicalID, r.PhysicalID))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("the change did not update in place:\n%s", strings.Join(errs, "\n"))
	}
	return nil
}
