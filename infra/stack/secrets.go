package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
)

// SecretPlaceholder is every secret's value until an operator puts the real
// one in. It is no credential, so it may appear in the template; a function
// that reads it fails its provider calls (the webhook fails closed).
const SecretPlaceholder = "PLACEHOLDER: put the real value in (aws secretsmanager put-secret-value)"

// SecretsProps configures the secrets.
type SecretsProps struct {
	// Retain keeps the secrets when the stack is deleted (every stage but an ephemeral one).
	Retain bool
}

// Secrets holds the Secrets Manager secrets of deploy.Secrets().
type Secrets struct {
	constructs.Construct
	// Secrets maps deploy.Secret.SecretID to its secret.
	Secrets map[string]awssecretsmanager.Secret
}

// NewSecrets creates one secret per deploy.Secrets() entry under the logical
// id template.yaml uses too (deploy.SecretLogicalID), holding
// SecretPlaceholder and a description telling the operator what to put in.
func NewSecrets(scope constructs.Construct, id *string, props *SecretsProps) *Secrets {
	if props == nil {
		props = &SecretsProps{}
	}
	s := &Secrets{Construct: constructs.NewConstruct(scope, id), Secrets: map[string]awssecretsmanager.Secret{}}
	for _, sec := range deploy.Secrets() {
		secret := awssecretsmanager.NewSecret(s.Construct, jsii.String(sec.SecretID), &awssecretsmanager.SecretProps{
			Description: jsii.String(sec.SecretID + ": read at init by the functions given " + sec.EnvVar +
				". Created with a placeholder: put the real value in after the first deployment, then restart the functions (a new deployment or an update of their configuration)."),
			SecretStringValue: awscdk.SecretValue_UnsafePlainText(jsii.String(SecretPlaceholder)),
			RemovalPolicy:     removal(props.Retain),
		})
		secret.Node().DefaultChild().(awssecretsmanager.CfnSecret).OverrideLogicalId(jsii.String(deploy.SecretLogicalID(sec.SecretID)))
		s.Secrets[sec.SecretID] = secret
	}
	return s
}
