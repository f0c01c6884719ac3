// Command authorizer is the REST API's REQUEST authorizer: Bearer key to
// account and permissions.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/boot"
)

func main() {
	boot.Logger()
	st := boot.Must(boot.Store(context.Background(), "authorizer"))
	lambda.Start((&auth.Authorizer{Keys: st}).Handle)
}
