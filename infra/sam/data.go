package sam

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

const tablesNote = `------------------------------------------------------------------ tables
shared/schema's Tables(): on demand, point-in-time recovery, encrypted with
the AWS managed key (the evidence table with a customer-managed key of its
own, EvidenceTableKey), kept when the stack goes or a change would replace
them. Table names are CloudFormation's; the functions read them from their
environment. Why each key and index is there: shared/schema/schema.go.`

// tables: one AWS::DynamoDB::Table per schema.Tables() entry.
func tables() ([]Pair, error) {
	var out []Pair
	for i, t := range schema.Tables() {
		p, err := table(t)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			p = p.Note(tablesNote)
		}
		out = append(out, p)
		if t.CustomerKey {
			out = append(out, tableKey(t))
		}
	}
	return out, nil
}

// tableKey is the customer-managed key of a table with CustomerKey, as
// infra/stack's newTableKey makes it: rotated yearly, administered by the
// account through IAM, used by this account's principals only through
// DynamoDB in this region.
func tableKey(t schema.Table) Pair {
	return key(stack.TableKeyLogicalID(t.ID), "Encrypts the "+t.ID+" table (customer-managed key)", false,
		Map(KV("Sid", stack.TableKeyUseSid), KV("Effect", "Allow"),
			KV("Principal", Flow(KV("AWS", "*"))),
			KV("Action", Strings(stack.TableKeyUseActions())), KV("Resource", "*"),
			KV("Condition", Map(KV("StringEquals", Map(
				KV("kms:CallerAccount", Ref("AWS::AccountId")),
				KV("kms:ViaService", Sub("dynamodb.${AWS::Region}.amazonaws.com"))))))))
}

// key is a customer-managed KMS key: rotated yearly, administered by the
// account through IAM (CDK's default key policy) plus statements, and kept
// when the stack goes or a change would replace it: what it encrypts is
// kept too. lockedOut says its statements keep its creator from changing
// its policy later (a break-glass guard): KMS is told that is on purpose
// (BypassPolicyLockoutSafetyCheck), as CDK's stack does.
func key(logicalID, description string, lockedOut bool, statements ...any) Pair {
	policy := Map(
		KV("Version", "2012-10-17"),
		KV("Statement", List(append([]any{
			Map(KV("Effect", "Allow"),
				KV("Principal", Flow(KV("AWS", Sub("arn:${AWS::Partition}:iam::${AWS::AccountId}:root")))),
				KV("Action", "kms:*"), KV("Resource", "*")),
		}, statements...)...)),
	)
	props := []Pair{KV("Description", description), KV("EnableKeyRotation", true), KV("KeyPolicy", policy)}
	if lockedOut {
		props = append([]Pair{KV("BypassPolicyLockoutSafetyCheck", true)}, props...)
	}
	return resource(logicalID, "AWS::KMS::Key", Map(props...), retained()...)
}

func table(t schema.Table) (Pair, error) {
	attrs := &keyAttrs{table: t.ID, seen: map[string]bool{}}
	key, err := attrs.keySchema(t.PartitionKey, t.SortKey)
	if err != nil {
		return Pair{}, err
	}
	global, local, err := indexes(t, attrs)
	if err != nil {
		return Pair{}, err
	}
	props := []Pair{
		KV("BillingMode", "PAY_PER_REQUEST"),
		KV("AttributeDefinitions", attrs.definitions()),
		KV("KeySchema", key),
	}
	if len(global) > 0 {
		props = append(props, KV("GlobalSecondaryIndexes", List(global...)))
	}
	if len(local) > 0 {
		props = append(props, KV("LocalSecondaryIndexes", List(local...)))
	}
	switch t.Stream {
	case "":
	case schema.NewAndOldImages:
		props = append(props, KV("StreamSpecification", Flow(KV("StreamViewType", string(t.Stream)))))
	default:
		return Pair{}, fmt.Errorf("sam: table %s: unsupported stream view %q", t.ID, t.Stream)
	}
	if t.TTLAttr != "" {
		props = append(props, KV("TimeToLiveSpecification", Flow(KV("AttributeName", t.TTLAttr), KV("Enabled", true))))
	}
	sse := Flow(KV("SSEEnabled", true))
	if t.CustomerKey {
		sse = Map(KV("SSEEnabled", true), KV("SSEType", "KMS"), KV("KMSMasterKeyId", GetAtt(stack.TableKeyLogicalID(t.ID), "Arn")))
	}
	props = append(props,
		KV("PointInTimeRecoverySpecification", Flow(KV("PointInTimeRecoveryEnabled", true))),
		KV("SSESpecification", sse),
		KV("DeletionProtectionEnabled", true),
	)
	return resource(deploy.TableLogicalID(t.ID), "AWS::DynamoDB::Table", Map(props...), retained()...), nil
}

// keyAttrs collects the attributes a table's keys and its indexes' keys
// use, name -> type in first-use order: its AttributeDefinitions.
type keyAttrs struct {
	table string
	attrs []Pair
	seen  map[string]bool
}

func (k *keyAttrs) use(a schema.Attr) error {
	if a.Type != schema.String && a.Type != schema.Number {
		return fmt.Errorf("sam: table %s: attribute %s has type %q", k.table, a.Name, a.Type)
	}
	if !k.seen[a.Name] {
		k.seen[a.Name] = true
		k.attrs = append(k.attrs, KV(a.Name, string(a.Type)))
	}
	return nil
}

// keySchema is the KeySchema of a partition key and an optional sort key.
func (k *keyAttrs) keySchema(pk schema.Attr, sk *schema.Attr) (*yaml.Node, error) {
	if err := k.use(pk); err != nil {
		return nil, err
	}
	keys := List(Flow(KV("AttributeName", pk.Name), KV("KeyType", "HASH")))
	if sk != nil && sk.Name != "" {
		if err := k.use(*sk); err != nil {
			return nil, err
		}
		keys.Content = append(keys.Content, Flow(KV("AttributeName", sk.Name), KV("KeyType", "RANGE")))
	}
	return keys, nil
}

func (k *keyAttrs) definitions() *yaml.Node {
	defs := List()
	for _, a := range k.attrs {
		defs.Content = append(defs.Content, Flow(KV("AttributeName", a.Key), KV("AttributeType", a.Value)))
	}
	return defs
}

// indexes are the table's global and local secondary indexes, in the
// table's order, their keys used in attrs.
func indexes(t schema.Table, attrs *keyAttrs) (global, local []any, err error) {
	for _, ix := range t.Indexes {
		pk := ix.PartitionKey
		if ix.Local {
			pk = t.PartitionKey // a local index shares the table's
		}
		sk := ix.SortKey
		ks, err := attrs.keySchema(pk, &sk)
		if err != nil {
			return nil, nil, err
		}
		proj, err := projection(t, ix)
		if err != nil {
			return nil, nil, err
		}
		def := Map(KV("IndexName", ix.Name), KV("KeySchema", ks), KV("Projection", proj))
		if ix.Local {
			local = append(local, def)
		} else {
			global = append(global, def)
		}
	}
	return global, local, nil
}

func projection(t schema.Table, ix schema.Index) (*yaml.Node, error) {
	switch ix.Projection {
	case schema.ProjectAll, schema.ProjectKeysOnly:
		return Flow(KV("ProjectionType", string(ix.Projection))), nil
	case schema.ProjectInclude:
		return Map(KV("ProjectionType", string(ix.Projection)), KV("NonKeyAttributes", ix.NonKeyAttrs)), nil
	}
	return nil, fmt.Errorf("sam: table %s, index %s: unknown projection %q", t.ID, ix.Name, ix.Projection)
}

const secretsNote = `----------------------------------------------------------------- secrets
deploy.Secrets(): created with a placeholder an operator replaces (aws
secretsmanager put-secret-value); a function reads its secrets once, at
init, by the ARN in its environment.`

// secrets: one AWS::SecretsManager::Secret per deploy.Secrets() entry.
func secrets() ([]Pair, error) {
	var out []Pair
	for i, s := range deploy.Secrets() {
		p := resource(deploy.SecretLogicalID(s.SecretID), "AWS::SecretsManager::Secret", Map(
			KV("Description", s.Description),
			KV("SecretString", stack.SecretPlaceholder),
		), retained()...)
		if i == 0 {
			p = p.Note(secretsNote)
		}
		out = append(out, p)
	}
	return out, nil
}

// secretOutput names the output holding a secret's ARN:
// <SecretID>SecretArn, one "Secret" only (OpenSanctionsWebhookSecretArn).
func secretOutput(s deploy.Secret) string {
	return strings.TrimSuffix(s.SecretID, "Secret") + "SecretArn"
}

const queuesNote = `------------------------------------------------------------------ queues
deploy.Queues(): standard queues named by CloudFormation, encrypted by SQS
(SSE-SQS: no KMS permission for anyone), each with a policy refusing any
request not made over TLS. A queue with a dead-letter queue sends a message
there after MaxReceiveCount receives; its visibility is six times its
consumer's timeout.`

// queues: per deploy.Queues() entry the queue and its SSL-only policy.
func queues() ([]Pair, error) {
	var out []Pair
	for i, q := range deploy.Queues() {
		props := []Pair{
			KV("SqsManagedSseEnabled", true),
			KV("MessageRetentionPeriod", q.RetentionDays*24*3600),
			KV("VisibilityTimeout", q.VisibilityTimeoutSeconds),
		}
		if q.DeadLetter != "" {
			dl, err := deploy.QueueByID(q.DeadLetter)
			if err != nil {
				return nil, fmt.Errorf("sam: queue %s: dead-letter queue: %w", q.ID, err)
			}
			if q.MaxReceiveCount < 1 {
				return nil, fmt.Errorf("sam: queue %s: MaxReceiveCount %d", q.ID, q.MaxReceiveCount)
			}
			props = append(props, KV("RedrivePolicy", Map(
				KV("deadLetterTargetArn", GetAtt(dl.LogicalID, "Arn")),
				KV("maxReceiveCount", q.MaxReceiveCount),
			)))
		}
		p := resource(q.LogicalID, "AWS::SQS::Queue", Map(props...), retained()...)
		if i == 0 {
			p = p.Note(queuesNote)
		}
		out = append(out, p, resource(stack.QueuePolicyLogicalID(q.LogicalID), "AWS::SQS::QueuePolicy", Map(
			KV("Queues", FlowList(Ref(q.LogicalID))),
			KV("PolicyDocument", Map(
				KV("Version", "2012-10-17"),
				KV("Statement", List(Map(
					KV("Effect", "Deny"),
					KV("Principal", Flow(KV("AWS", "*"))),
					KV("Action", "sqs:*"),
					KV("Resource", GetAtt(q.LogicalID, "Arn")),
					KV("Condition", Flow(KV("Bool", Flow(KV("aws:SecureTransport", "false"))))),
				))),
			)),
		)))
	}
	return out, nil
}
