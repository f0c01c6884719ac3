package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// TableKeyLogicalID is the logical id of the customer-managed KMS key of a
// table with schema.Table.CustomerKey (EvidenceTable: EvidenceTableKey).
func TableKeyLogicalID(tableID string) string { return deploy.TableLogicalID(tableID) + "Key" }

// TableKeyUseActions are what DynamoDB does with a table's key on behalf of
// the principals that use the table.
func TableKeyUseActions() []string {
	return []string{"kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey", "kms:CreateGrant"}
}

// TableKeyUseSid names the key policy's statement that lets DynamoDB use
// the key.
const TableKeyUseSid = "UseThroughDynamoDB"

// newTableKey is a table's own key, rotated yearly, and retained on every
// stage whatever becomes of its table: it also encrypts the objects of a
// bucket (deploy.Bucket.KeyOfTable), which outlive the stack and would be
// unreadable without it. Its policy is the account's (administered through
// IAM, as CDK's default) plus, like the AWS-managed DynamoDB key's, use by
// any principal of this account only through DynamoDB in this region: who
// reads or writes the table stays the functions' table grants
// (shared/deploy) alone; no function holds a KMS permission it could use
// outside DynamoDB.
func newTableKey(scope constructs.Construct, t schema.Table) awskms.Key {
	key := awskms.NewKey(scope, jsii.String(TableKeyLogicalID(t.ID)), &awskms.KeyProps{
		Description:       jsii.String("Encrypts the " + t.ID + " table (customer-managed key)"),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String(TableKeyUseSid),
		Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
		Actions:    jsii.Strings(TableKeyUseActions()...),
		Resources:  jsii.Strings("*"),
		Conditions: &map[string]any{
			"StringEquals": map[string]any{
				"kms:CallerAccount": awscdk.Aws_ACCOUNT_ID(),
				"kms:ViaService":    awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String("dynamodb."), awscdk.Aws_REGION(), jsii.String(".amazonaws.com")}),
			},
		},
	}), jsii.Bool(false))
	key.Node().DefaultChild().(awskms.CfnKey).OverrideLogicalId(jsii.String(TableKeyLogicalID(t.ID)))
	return key
}
