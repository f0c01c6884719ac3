package boot

import (
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// StoreFor is the store of the deployed function: the tables it is granted
// (shared/deploy), named in its environment, over DynamoDB (DynamoDB).
func StoreFor(cfg aws.Config, function string) (*store.Store, error) {
	f, ok := deploy.Lookup(function)
	if !ok {
		return nil, fmt.Errorf("boot: %q is not a function of shared/deploy", function)
	}
	names, err := schema.NamesFromEnv(os.Getenv, f.TableIDs()...)
	if err != nil {
		return nil, fmt.Errorf("boot: tables of %s: %w", function, err)
	}
	return store.New(DynamoDB(cfg), names), nil
}
