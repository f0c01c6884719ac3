package stack

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// DataProps configures the tables.
type DataProps struct {
	// Retain keeps every table when it leaves the stack or the stack is
	// deleted, and turns deletion protection on (every stage but an ephemeral one).
	Retain bool
}

// Data holds the DynamoDB tables.
type Data struct {
	constructs.Construct
	// Tables maps schema table ids (schema.Entities, …) to their tables.
	Tables map[string]awsdynamodb.Table
	// Keys maps the ids of tables with CustomerKey to their keys.
	Keys map[string]awskms.Key
}

// NewData creates every table of schema.Tables() as described there (keys,
// local and global indexes with their projections, stream, TTL), on demand,
// with point-in-time recovery and the AWS-managed KMS key (a key of its own,
// newTableKey, for a table with CustomerKey), under the logical
// id template.yaml uses too (deploy.TableLogicalID). CloudFormation names the
// tables; functions get the names in their environment.
func NewData(scope constructs.Construct, id *string, props *DataProps) *Data {
	if props == nil {
		props = &DataProps{}
	}
	d := &Data{Construct: constructs.NewConstruct(scope, id), Tables: map[string]awsdynamodb.Table{}, Keys: map[string]awskms.Key{}}
	for _, t := range schema.Tables() {
		table, key := newTable(d.Construct, t, props.Retain)
		d.Tables[t.ID] = table
		if key != nil {
			d.Keys[t.ID] = key
		}
	}
	return d
}

func newTable(scope constructs.Construct, t schema.Table, retain bool) (awsdynamodb.Table, awskms.Key) {
	tp := &awsdynamodb.TableProps{
		PartitionKey: keyAttr(t.PartitionKey),
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		Encryption:         awsdynamodb.TableEncryption_AWS_MANAGED,
		DeletionProtection: jsii.Bool(retain),
		RemovalPolicy:      removal(retain),
	}
	if t.SortKey != nil {
		tp.SortKey = keyAttr(*t.SortKey)
	}
	var key awskms.Key
	if t.CustomerKey {
		key = newTableKey(scope, t)
		tp.Encryption = awsdynamodb.TableEncryption_CUSTOMER_MANAGED
		tp.EncryptionKey = key
	}
	switch t.Stream {
	case "":
	case schema.NewAndOldImages:
		tp.Stream = awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES
	default:
		panic(fmt.Sprintf("infra: table %s: unsupported stream view %q", t.ID, t.Stream))
	}
	if t.TTLAttr != "" {
		tp.TimeToLiveAttribute = jsii.String(t.TTLAttr)
	}
	table := awsdynamodb.NewTable(scope, jsii.String(deploy.TableLogicalID(t.ID)), tp)

	for _, ix := range t.Indexes {
		projection, nonKey := projectionOf(t, ix)
		if ix.Local {
			table.AddLocalSecondaryIndex(&awsdynamodb.LocalSecondaryIndexProps{
				IndexName:        jsii.String(ix.Name),
				SortKey:          keyAttr(ix.SortKey),
				ProjectionType:   projection,
				NonKeyAttributes: nonKey,
			})
			continue
		}
		gp := &awsdynamodb.GlobalSecondaryIndexProps{
			IndexName:        jsii.String(ix.Name),
			PartitionKey:     keyAttr(ix.PartitionKey),
			ProjectionType:   projection,
			NonKeyAttributes: nonKey,
		}
		if ix.SortKey.Name != "" {
			gp.SortKey = keyAttr(ix.SortKey)
		}
		table.AddGlobalSecondaryIndex(gp)
	}

	table.Node().DefaultChild().(awsdynamodb.CfnTable).OverrideLogicalId(jsii.String(deploy.TableLogicalID(t.ID)))
	return table, key
}

func projectionOf(t schema.Table, ix schema.Index) (awsdynamodb.ProjectionType, *[]*string) {
	switch ix.Projection {
	case schema.ProjectAll:
		return awsdynamodb.ProjectionType_ALL, nil
	case schema.ProjectKeysOnly:
		return awsdynamodb.ProjectionType_KEYS_ONLY, nil
	case schema.ProjectInclude:
		return awsdynamodb.ProjectionType_INCLUDE, jsii.Strings(ix.NonKeyAttrs...)
	}
	panic(fmt.Sprintf("infra: table %s, index %s: unknown projection %q", t.ID, ix.Name, ix.Projection))
}

func keyAttr(a schema.Attr) *awsdynamodb.Attribute {
	switch a.Type {
	case schema.String:
		return &awsdynamodb.Attribute{Name: jsii.String(a.Name), Type: awsdynamodb.AttributeType_STRING}
	case schema.Number:
		return &awsdynamodb.Attribute{Name: jsii.String(a.Name), Type: awsdynamodb.AttributeType_NUMBER}
	}
	panic(fmt.Sprintf("infra: key attribute %s: unsupported type %q", a.Name, a.Type))
}
