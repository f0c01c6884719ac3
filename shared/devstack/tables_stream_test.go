package devstack

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evs-kyb/evs/shared/schema"
)

// A table kept from before its schema gave it a stream (make local's data
// on disk) gets the stream from EnsureTable, on DynamoDB Local.
func TestEnsureTableTurnsOnAStreamAddedLater(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no DynamoDB Local")
	}
	ctx := context.Background()
	if err := Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	db := dynamodb.NewFromConfig(AWSConfig(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(DynamoDBEndpoint()) })
	tb, _ := schema.Lookup(schema.Reviews)
	name := UniquePrefix("stream") + "reviews"
	t.Cleanup(func() { db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	old := CreateTableInput(tb, name)
	old.StreamSpecification = nil
	if _, err := db.CreateTable(ctx, old); err != nil {
		t.Fatal(err)
	}
	for range 2 { // and again: nothing more to do
		if err := EnsureTable(ctx, db, tb, name); err != nil {
			t.Fatal(err)
		}
		desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		if s := desc.Table.StreamSpecification; s == nil || !aws.ToBool(s.StreamEnabled) || s.StreamViewType != types.StreamViewType(tb.Stream) {
			t.Fatalf("stream %+v, want %s", s, tb.Stream)
		}
	}
}
