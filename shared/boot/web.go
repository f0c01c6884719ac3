package boot

import (
	"context"
	"fmt"
	"net/http"
	"os"

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
	"github.com/evs-kyb/evs/shared/webpage"
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

// web is the web function's handler: the shell (package webpage) with the
// operator console under /console/ and the settings area under /settings/
// mounted on it, one function and one origin, so the areas share one
// sign-in, one session and the passkeys' RP.
func web(d Deps) http.Handler {
	wf := d.Workflow
	if wf == nil {
		wf = workflow.Unavailable{}
	}
	sessions := &portal.Service{Store: d.Store, Clock: d.Clock}
	s := webpage.New(webpage.Config{Sessions: sessions, Log: d.log(), SignInPath: deploy.ConsolePath + "/"})
	console.Mount(s, console.Deps{
		Portal:    sessions,
		Passkeys:  &passkey.Service{Store: d.Store, Clock: d.Clock, Config: d.Passkeys},
		Queue:     &queue.Service{Store: d.Store, Clock: d.Clock},
		Store:     d.Store,
		Workflow:  wf,
		Countries: country.ISO(),
		Clock:     d.Clock,
		Blobs:     d.Blobs,
	})
	settings.Mount(s, settings.Deps{
		Endpoints:  &subscriptions.Service{Store: d.Store, Allow: d.Allow, Clock: d.Clock},
		Deliveries: &delivery.Redeliverer{Store: d.Store, Queue: d.Deliveries, Clock: d.Clock},
		Tester:     &delivery.Tester{Store: d.Store, Queue: d.Deliveries, Clock: d.Clock},
		Countries:  d.Store,
		Catalogue:  country.ISO(),
		Clock:      d.Clock,
	})
	return s
}
