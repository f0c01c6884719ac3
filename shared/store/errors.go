package store

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

func isCondFailed(err error) bool { return err != nil && dynamo.IsCondCheckFailed(err) }

// isTxCondFailed reports whether a transaction was cancelled only because a
// condition failed (not a conflict with another transaction or a fault).
func isTxCondFailed(err error) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return false
	}
	failed := false
	for _, r := range tce.CancellationReasons {
		switch code := aws.ToString(r.Code); code {
		case "", "None":
		case "ConditionalCheckFailed":
			failed = true
		default:
			return false
		}
	}
	return failed
}

// isTxConflict reports whether a transaction lost a race with another write
// (worth retrying).
func isTxConflict(err error) bool {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if aws.ToString(r.Code) == "TransactionConflict" {
				return true
			}
		}
	}
	var tc *types.TransactionConflictException
	return errors.As(err, &tc)
}

// isThrottled reports whether DynamoDB refused a request for its rate (the
// SDK already retried it): worth waiting for, not a fault.
func isThrottled(err error) bool {
	var pte *types.ProvisionedThroughputExceededException
	var te *types.ThrottlingException
	var rle *types.RequestLimitExceeded
	return errors.As(err, &pte) || errors.As(err, &te) || errors.As(err, &rle)
}
