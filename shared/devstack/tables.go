package devstack

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/evs-kyb/evs/shared/schema"
)

// CreateTableInput is the CreateTable request for a shared/schema table
// under the physical name.
// Tables are on-demand; encryption and point-in-time recovery are set by the
// CDK stack, as DynamoDB Local ignores them.
func CreateTableInput(t schema.Table, name string) *dynamodb.CreateTableInput {
	attrs := map[string]types.ScalarAttributeType{}
	addAttr := func(a schema.Attr) { attrs[a.Name] = types.ScalarAttributeType(a.Type) }
	keySchema := func(pk schema.Attr, sk *schema.Attr) []types.KeySchemaElement {
		ks := []types.KeySchemaElement{{AttributeName: aws.String(pk.Name), KeyType: types.KeyTypeHash}}
		addAttr(pk)
		if sk != nil {
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk.Name), KeyType: types.KeyTypeRange})
			addAttr(*sk)
		}
		return ks
	}
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   keySchema(t.PartitionKey, t.SortKey),
	}
	for _, ix := range t.Indexes {
		sk := ix.SortKey
		proj := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)}
		if ix.Projection == schema.ProjectInclude {
			proj.NonKeyAttributes = ix.NonKeyAttrs
		}
		if ix.Local {
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
				IndexName: aws.String(ix.Name), KeySchema: keySchema(t.PartitionKey, &sk), Projection: proj,
			})
			continue
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(ix.Name), KeySchema: keySchema(ix.PartitionKey, &sk), Projection: proj,
		})
	}
	for n, typ := range attrs {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: typ})
	}
	if t.Stream != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(t.Stream)}
	}
	return in
}

// TableAPI is the part of the DynamoDB client that creating and dropping
// tables needs.
type TableAPI interface {
	CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
	DeleteTable(context.Context, *dynamodb.DeleteTableInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error)
	UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
}

// EnsureTables creates every table of names that does not exist yet and
// waits until all are active. Running it again changes nothing.
func EnsureTables(ctx context.Context, api TableAPI, names schema.Names) error {
	for _, t := range schema.Tables() {
		if name, ok := names[t.ID]; ok {
			if err := EnsureTable(ctx, api, t, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// EnsureTable creates the table t under the physical name unless it exists,
// waits until it is active and enables its TTL. Creating it again is
// harmless.
func EnsureTable(ctx context.Context, api TableAPI, t schema.Table, name string) error {
	desc, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var nf *types.ResourceNotFoundException
	switch {
	case err == nil:
		if err := sameIndexes(desc.Table, t, name); err != nil {
			return err
		}
		return ensureStream(ctx, api, desc.Table, t, name)
	case !errors.As(err, &nf):
		return fmt.Errorf("describe table %s: %w", name, err)
	}
	if _, err := api.CreateTable(ctx, CreateTableInput(t, name)); err != nil {
		var inUse *types.ResourceInUseException
		if !errors.As(err, &inUse) {
			return fmt.Errorf("create table %s: %w", name, err)
		}
	}
	// DynamoDB Local makes tables active at once; DynamoDB takes a moment.
	w := dynamodb.NewTableExistsWaiter(api, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = time.Second
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute); err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	if t.TTLAttr != "" {
		if _, err := api.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(t.TTLAttr), Enabled: aws.Bool(true)},
		}); err != nil {
			return fmt.Errorf("enable ttl on %s: %w", name, err)
		}
	}
	return nil
}

// ensureStream turns on the stream a table kept from before its schema
// gave it one (make local's data on disk): a stream, unlike an index, can
// be added to a table that exists.
func ensureStream(ctx context.Context, api TableAPI, have *types.TableDescription, t schema.Table, name string) error {
	if t.Stream == "" || (have.StreamSpecification != nil && aws.ToBool(have.StreamSpecification.StreamEnabled)) {
		return nil
	}
	_, err := api.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:           aws.String(name),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(t.Stream)},
	})
	if err != nil {
		return fmt.Errorf("enable the stream of %s: %w", name, err)
	}
	return nil
}

// DropTables deletes every table of names, ignoring those already gone.
func DropTables(ctx context.Context, api TableAPI, names schema.Names) error {
	for _, name := range names {
		_, err := api.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		var nf *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &nf) {
			return fmt.Errorf("delete table %s: %w", name, err)
		}
	}
	return nil
}

// sameIndexes refuses a table kept from before its schema changed (make
// local's data on disk): an index cannot be added to a table with local
// indexes, and queries on a missing one, or on one whose keys or projection
// changed (a local index become global under the same name), would fail or
// read too little, request by request.
func sameIndexes(have *types.TableDescription, t schema.Table, name string) error {
	var got, want []string
	// By name and kind: an index that moved from local to global keeps
	// its name.
	for _, ix := range have.LocalSecondaryIndexes {
		got = append(got, describedShape(ix.IndexName, "local", ix.KeySchema, ix.Projection))
	}
	for _, ix := range have.GlobalSecondaryIndexes {
		got = append(got, describedShape(ix.IndexName, "global", ix.KeySchema, ix.Projection))
	}
	for _, ix := range t.Indexes {
		want = append(want, schemaShape(t, ix))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("table %s has the indexes %v, but shared/schema now describes %v: its data predates the change (for make local's data: make local-reset)", name, got, want)
	}
	return nil
}

// indexShape names an index with its kind, keys and projection, as
// sameIndexes compares them.
func indexShape(name, kind, pk, sk, projection string) string {
	return fmt.Sprintf("%s(%s %s,%s %s)", name, kind, pk, sk, projection)
}

func schemaShape(t schema.Table, ix schema.Index) string {
	kind, pk := "global", ix.PartitionKey.Name
	if ix.Local {
		kind, pk = "local", t.PartitionKey.Name
	}
	return indexShape(ix.Name, kind, pk, ix.SortKey.Name, string(ix.Projection))
}

func describedShape(name *string, kind string, ks []types.KeySchemaElement, p *types.Projection) string {
	var pk, sk, proj string
	for _, k := range ks {
		if k.KeyType == types.KeyTypeHash {
			pk = aws.ToString(k.AttributeName)
		} else {
			sk = aws.ToString(k.AttributeName)
		}
	}
	if p != nil {
		proj = string(p.ProjectionType)
	}
	return indexShape(aws.ToString(name), kind, pk, sk, proj)
}
