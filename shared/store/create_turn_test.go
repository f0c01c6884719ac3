package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
)

// loseFirstTurnAnswer applies the first request that takes a commit turn,
// then answers it with a dropped connection, as a network can: the SDK
// asks again, and the second ask finds the turn already taken — by itself.
type loseFirstTurnAnswer struct {
	mu       sync.Mutex
	attempts int
}

type takesTurn struct{}

func (l *loseFirstTurnAnswer) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		err := s.Initialize.Add(middleware.InitializeMiddlewareFunc("mark-turn", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if u, ok := in.Parameters.(*dynamodb.UpdateItemInput); ok && strings.Contains(aws.ToString(u.ConditionExpression), "create_turn_until") &&
				strings.HasPrefix(aws.ToString(u.UpdateExpression), "SET") && strings.Contains(aws.ToString(u.UpdateExpression), "create_turn") &&
				!strings.Contains(aws.ToString(u.UpdateExpression), "REMOVE") {
				ctx = middleware.WithStackValue(ctx, takesTurn{}, true)
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
		if err != nil {
			return err
		}
		// After the retry middleware: once per attempt.
		return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("lose-turn-answer", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleFinalize(ctx, in)
			if middleware.GetStackValue(ctx, takesTurn{}) == nil {
				return out, md, err
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			l.attempts++
			if l.attempts == 1 && err == nil {
				return out, md, errors.New("read tcp 127.0.0.1:8000: connection reset by peer")
			}
			return out, md, err
		}), middleware.After)
	})
}

// A turn our own request took, whose answer was lost and which the SDK
// asked for again, is ours at once: the create does not wait out its own
// lease (5 s of polling, tens of refused attempts).
func TestATurnOurRetriedRequestTookIsOurs(t *testing.T) {
	ctx := context.Background()
	lose := &loseFirstTurnAnswer{}
	st := devstacktest.Store(t, lose.option)
	acct := newAccount(t, st, "SA")
	if _, err := st.CreateEntity(ctx, withChildren(sampleEntity(acct, "SA", "7001234567", t0))); err != nil {
		t.Fatal(err)
	}
	if lose.attempts != 2 {
		t.Errorf("%d attempts to take the turn, want 2 (the lost one and its retry)", lose.attempts)
	}
	// The commit ended the turn: the next create takes it at once.
	if _, err := st.CreateEntity(ctx, withChildren(sampleEntity(acct, "SA", "7001234568", t0))); err != nil {
		t.Fatal(err)
	}
	if lose.attempts != 3 {
		t.Errorf("%d attempts in all, want 3", lose.attempts)
	}
}
