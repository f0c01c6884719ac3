package boot

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/evs-kyb/evs/shared/console"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/queue"
	"github.com/evs-kyb/evs/shared/settings"
	"github.com/evs-kyb/evs/shared/subscriptions"
	"github.com/evs-kyb/evs/shared/workflow"
)

// DecisionWorkflow is the decision state machine as the console drives it,
// its ARN from the environment.
func DecisionWorkflow(_ context.Context, cfg aws.Config) (*workflow.SFN, error) {
	arn := os.Getenv(deploy.DecisionStateMachineVar)
	if arn == "" {
		return nil, fmt.Errorf("boot: %s is not set", deploy.DecisionStateMachineVar)
	}
	return &workflow.SFN{Client: sfn.NewFromConfig(cfg), StateMachineARN: arn}, nil
}

// web is the web function's handler: the settings area under /settings/
// and the operator console under /console/, one function and one origin,
// so the pages share their security headers' rules and the passkeys' RP.
func web(d Deps) http.Handler {
	wf := d.Workflow
	if wf == nil {
		wf = workflow.Unavailable{}
	}
	c := console.New(console.Deps{
		Portal:    &portal.Service{Store: d.Store, Clock: d.Clock},
		Passkeys:  &passkey.Service{Store: d.Store, Clock: d.Clock, Config: d.Passkeys},
		Queue:     &queue.Service{Store: d.Store, Clock: d.Clock},
		Store:     d.Store,
		Workflow:  wf,
		Countries: country.ISO(),
		Clock:     d.Clock,
		Log:       d.log(),
	})
	s := settings.New(settings.Deps{
		Portal:     &portal.Service{Store: d.Store, Clock: d.Clock},
		Endpoints:  &subscriptions.Service{Store: d.Store, Allow: d.Allow, Clock: d.Clock},
		Deliveries: &delivery.Redeliverer{Store: d.Store, Queue: d.Deliveries, Clock: d.Clock},
		Tester:     &delivery.Tester{Store: d.Store, Queue: d.Deliveries, Clock: d.Clock},
		Countries:  d.Store,
		Catalogue:  country.ISO(),
		Clock:      d.Clock,
		Log:        d.log(),
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == deploy.ConsolePath || strings.HasPrefix(p, deploy.ConsolePath+"/") {
			c.ServeHTTP(w, r)
			return
		}
		s.ServeHTTP(w, r)
	})
}
