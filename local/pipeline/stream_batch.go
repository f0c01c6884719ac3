package pipeline

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
)

// process invokes the handler once on the batch at the shard's checkpoint
// and moves the checkpoint as Lambda would.
func (p *StreamPoller) process(ctx context.Context, log *slog.Logger, arn string, sh *shard) {
	if sh.exhausted { // its failure record could not be delivered yet
		p.giveUp(ctx, log, arn, sh)
		return
	}
	batch := sh.buf[:min(sh.window, len(sh.buf))]
	ev := events.DynamoDBEvent{Records: make([]events.DynamoDBEventRecord, 0, len(batch))}
	for i, r := range batch {
		rec, err := StreamRecord(arn, r)
		if err != nil {
			// No retry can make a record Lambda could not present: send the
			// records before it, and give up on it once it is first.
			log.Error("stream record cannot be converted", "sequence_number", seq(r), "error", err.Error())
			if i == 0 {
				sh.failSeq, sh.failures, sh.exhausted = seq(r), 0, true
				p.giveUp(ctx, log, arn, sh)
				return
			}
			batch = batch[:i]
			break
		}
		ev.Records = append(ev.Records, rec)
	}
	// The invocation does not end when the poller is told to stop: it runs
	// to its end (or the function's timeout), and its outcome counts.
	ictx, cancel := p.invocationContext(ctx)
	resp, requestID, err := invoke(ictx, p.log(), p.functionARN(), p.Handler, ev)
	cancel()
	failAt, fnErr := 0, err != nil
	if err == nil {
		if len(resp.BatchItemFailures) == 0 {
			p.ack(log, arn, sh, seq(batch[len(batch)-1]))
			sh.buf = sh.buf[len(batch):]
			sh.window, sh.failSeq, sh.failures = p.batchSize(), "", 0
			log.Debug("stream batch handled", "records", len(batch), "aws_request_id", requestID)
			return
		}
		if failAt = lowestFailure(ev.Records, resp.BatchItemFailures); failAt < 0 {
			// Lambda takes an identifier naming no record of the batch as a
			// failure of the whole batch.
			log.Warn("batch item failure names no record of the batch", "aws_request_id", requestID)
			failAt, fnErr = 0, true
		}
	}
	if failAt > 0 { // the records before the failure are done
		p.ack(log, arn, sh, seq(batch[failAt-1]))
	}
	sh.buf = sh.buf[failAt:]
	x := seq(sh.buf[0])
	if fnErr && len(batch) > 1 {
		sh.window = len(batch) / 2
		log.Warn("stream batch failed; bisecting", "records", len(batch), "next_batch", sh.window, "aws_request_id", requestID, "error", errText(err))
		Sleep(ctx, p.backoff())
		return
	}
	if x != sh.failSeq {
		sh.failSeq, sh.failures = x, 0
	}
	sh.failures++
	sh.lastRequestID, sh.lastFnErr = requestID, fnErr
	if p.Source.MaxRetries >= 0 && sh.failures > p.Source.MaxRetries {
		sh.exhausted = true
		p.giveUp(ctx, log, arn, sh)
		return
	}
	log.Warn("stream record failed; retrying", "sequence_number", x, "attempt", sh.failures, "max_retries", p.Source.MaxRetries, "aws_request_id", requestID, "error", errText(err))
	Sleep(ctx, p.backoff())
}

// lowestFailure is the index of the earliest record the response names, or
// -1 when an identifier names no record of the batch.
func lowestFailure(recs []events.DynamoDBEventRecord, failures []events.DynamoDBBatchItemFailure) int {
	index := make(map[string]int, len(recs))
	for i, r := range recs {
		index[r.Change.SequenceNumber] = i
	}
	lowest := len(recs)
	for _, f := range failures {
		i, ok := index[f.ItemIdentifier]
		if !ok {
			return -1
		}
		lowest = min(lowest, i)
	}
	return lowest
}

func errText(err error) string {
	if err == nil {
		return "batch item failure"
	}
	return err.Error()
}
