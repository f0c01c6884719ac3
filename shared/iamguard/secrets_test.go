package iamguard_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go/middleware"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/iamguard"
)

// TestSecretsAreThoseTheCatalogueNames: a Secrets Manager read of another
// secret is refused before it is sent; one of the role's own goes on (here
// to an address where nothing answers).
func TestSecretsAreThoseTheCatalogueNames(t *testing.T) {
	own := "arn:aws:secretsmanager:us-east-1:000000000000:secret:wathq-AbCdEf"
	role := iamguard.New(deploy.Function{Name: "example"}, nil, "us-east-1").WithSecrets(own)
	client := secretsmanager.New(secretsmanager.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://127.0.0.1:1"), RetryMaxAttempts: 1,
		Credentials: aws.AnonymousCredentials{}, APIOptions: []func(*middleware.Stack) error{role.APIOption},
	})
	_, err := client.GetSecretValue(context.Background(), &secretsmanager.GetSecretValueInput{SecretId: aws.String("arn:aws:secretsmanager:us-east-1:000000000000:secret:other")})
	if d, ok := iamguard.AsDenied(err); !ok || d.Action != "secretsmanager:GetSecretValue" {
		t.Fatalf("another secret: %v, want a refusal", err)
	}
	_, err = client.GetSecretValue(context.Background(), &secretsmanager.GetSecretValueInput{SecretId: aws.String(own)})
	if _, ok := iamguard.AsDenied(err); ok || err == nil {
		t.Fatalf("its own secret: %v, want it sent (and nothing to answer)", err)
	}
}

func TestAnObjectComesWithItsKeyAction(t *testing.T) {
	f := deploy.Function{Name: "example", Objects: []deploy.ObjectGrant{{Bucket: deploy.BucketRecords, Actions: []string{"s3:PutObject", "s3:GetObject"}}}}
	r := iamguard.New(f, nil, "us-east-1")
	for _, a := range []string{"s3:PutObject", "s3:GetObject"} {
		if err := r.Object(a, deploy.BucketRecords, "k"); err != nil {
			t.Errorf("%s with the key action the catalogue grants with it: %v", a, err)
		}
	}
}
