package rehearse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// clients are the service APIs of one region, at moto.
type clients struct {
	cfn    *cloudformation.Client
	ddb    *dynamodb.Client
	sqs    *sqs.Client
	s3     *s3.Client
	kms    *kms.Client
	lambda *lambda.Client
	sfn    *sfn.Client
	events *eventbridge.Client
	apigw  *apigateway.Client
	sm     *secretsmanager.Client
}

func newClients(endpoint, region string) *clients {
	cfg := aws.Config{Region: region, BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("rehearsal", "rehearsal", "")}
	return &clients{
		cfn: cloudformation.NewFromConfig(cfg), ddb: dynamodb.NewFromConfig(cfg), sqs: sqs.NewFromConfig(cfg),
		s3:  s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }),
		kms: kms.NewFromConfig(cfg), lambda: lambda.NewFromConfig(cfg), sfn: sfn.NewFromConfig(cfg),
		events: eventbridge.NewFromConfig(cfg), apigw: apigateway.NewFromConfig(cfg), sm: secretsmanager.NewFromConfig(cfg),
	}
}

// resource is one resource of a deployed stack, as CloudFormation's
// DescribeStackResources tells it.
type resource struct {
	Stack, Region, LogicalID, PhysicalID, Type, Status string
}

// deployed is every stack of a deployment: their status, outputs and
// resources, and the clients of their regions.
type deployed struct {
	endpoint string
	stacks   []stackArtifact
	status   map[string]string
	outputs  map[string]string
	// byID maps logical ids to the resources of that id, in any stack.
	byID    map[string][]resource
	clients map[string]*clients
}

// describe reads the stacks through CloudFormation's API.
func describe(ctx context.Context, endpoint string, stacks []stackArtifact) (*deployed, error) {
	d := &deployed{endpoint: endpoint, stacks: stacks, status: map[string]string{}, outputs: map[string]string{},
		byID: map[string][]resource{}, clients: map[string]*clients{}}
	for _, st := range stacks {
		c := d.in(st.Region)
		out, err := c.cfn.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(st.Name)})
		if err != nil || len(out.Stacks) != 1 {
			return nil, fmt.Errorf("describe stack %s in %s: %v", st.Name, st.Region, err)
		}
		d.status[st.Name] = string(out.Stacks[0].StackStatus)
		for _, o := range out.Stacks[0].Outputs {
			d.outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
		}
		res, err := c.cfn.DescribeStackResources(ctx, &cloudformation.DescribeStackResourcesInput{StackName: aws.String(st.Name)})
		if err != nil {
			return nil, fmt.Errorf("describe the resources of stack %s: %w", st.Name, err)
		}
		for _, r := range res.StackResources {
			id := aws.ToString(r.LogicalResourceId)
			d.byID[id] = append(d.byID[id], resource{Stack: st.Name, Region: st.Region, LogicalID: id,
				PhysicalID: aws.ToString(r.PhysicalResourceId), Type: aws.ToString(r.ResourceType), Status: string(r.ResourceStatus)})
		}
	}
	return d, nil
}

// in is the clients of a region.
func (d *deployed) in(region string) *clients {
	c, ok := d.clients[region]
	if !ok {
		c = newClients(d.endpoint, region)
		d.clients[region] = c
	}
	return c
}

// one is the resource of a logical id, which must be in exactly one stack.
func (d *deployed) one(logicalID, typ string) (resource, error) {
	rs := d.byID[logicalID]
	if len(rs) != 1 {
		return resource{}, fmt.Errorf("%s: %d resources of this logical id in the stacks, want 1", logicalID, len(rs))
	}
	if rs[0].Type != typ {
		return resource{}, fmt.Errorf("%s: a %s, want a %s", logicalID, rs[0].Type, typ)
	}
	return rs[0], nil
}

// ofType are the resources of a type, in every stack.
func (d *deployed) ofType(typ string) []resource {
	var out []resource
	for _, rs := range d.byID {
		for _, r := range rs {
			if r.Type == typ {
				out = append(out, r)
			}
		}
	}
	return out
}

// missing names every resource of the stacks' templates that
// CloudFormation does not list as created or updated: moto skips a type it
// has no model for and still completes the stack.
func (d *deployed) missing() ([]string, error) {
	var out []string
	for _, st := range d.stacks {
		raw, err := os.ReadFile(st.Template)
		if err != nil {
			return nil, fmt.Errorf("template of %s: %w", st.Name, err)
		}
		var tmpl struct {
			Resources map[string]struct {
				Type      string `json:"Type"`
				Condition string `json:"Condition"`
			} `json:"Resources"`
		}
		if err := json.Unmarshal(raw, &tmpl); err != nil {
			return nil, fmt.Errorf("template of %s: %w", st.Name, err)
		}
		for id, r := range tmpl.Resources {
			if r.Condition != "" {
				continue // created or not as its condition says
			}
			found := false
			for _, got := range d.byID[id] {
				if got.Stack == st.Name && got.Type == r.Type &&
					(strings.HasSuffix(got.Status, "CREATE_COMPLETE") || strings.HasSuffix(got.Status, "UPDATE_COMPLETE")) {
					found = true
				}
			}
			if !found {
				out = append(out, fmt.Sprintf("%s: %s %s not created", st.Name, r.Type, id))
			}
		}
	}
	return out, nil
}

// changed reports whether a stack's template differs from the one this
// deployment (nil: none yet) made it with: an update, not a creation.
func (d *deployed) changed(st stackArtifact) (bool, error) {
	if d == nil {
		return false, nil
	}
	for _, was := range d.stacks {
		if was.Name != st.Name {
			continue
		}
		a, err := os.ReadFile(was.Template)
		if err != nil {
			return false, fmt.Errorf("template of %s: %w", st.Name, err)
		}
		b, err := os.ReadFile(st.Template)
		if err != nil {
			return false, fmt.Errorf("template of %s: %w", st.Name, err)
		}
		return !bytes.Equal(a, b), nil
	}
	return false, nil // a stack new to this deployment is created
}
