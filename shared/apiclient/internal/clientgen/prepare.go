package clientgen

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Prepare returns the OpenAPI 3.1 document doc in the form oapi-codegen
// v2.8.2 can load, with the JSON pointers of what it rewrote.
//
// oapi-codegen reads 3.1 itself (type arrays with "null", const, oneOf with
// {type: 'null'}, if/then/else, webhooks), but its loader, kin-openapi
// v0.142.0, takes a schema to be an object: a boolean schema where a
// schema object is expected (`properties: {risk_level_updated_at: true}`)
// fails the load with "cannot unmarshal bool into field
// Schema.properties". JSON Schema 2020-12 (§4.3.2) defines both booleans by
// an object of the same meaning: true is {}, which every instance
// satisfies, and false is {not: {}}, which none does. Prepare replaces
// each boolean subschema by that object, so the document it returns says
// exactly what doc says; it stays 3.1, and nothing else changes but the
// formatting (comments and quoting are not kept).
//
// additionalProperties, unevaluatedItems and unevaluatedProperties are
// left as they are: kin-openapi reads a boolean there, and oapi-codegen
// gives `additionalProperties: false` a meaning of its own.
//
// What counts as a schema: a value of `schema` anywhere outside example
// data and extensions (x-…), each of components/schemas, and, inside a
// schema, the subschemas JSON Schema 2020-12 names (properties, items,
// allOf, not, if, …). Example values (example, examples, default, enum,
// const) are data and are never changed.
func Prepare(doc []byte) ([]byte, []string, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, nil, fmt.Errorf("read the OpenAPI document: %w", err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, nil, errors.New("the OpenAPI document is not a YAML mapping")
	}
	top := root.Content[0]
	if v := lookup(top, "openapi"); v == nil || !strings.HasPrefix(v.Value, "3.1.") {
		return nil, nil, errors.New("not an OpenAPI 3.1 document (openapi: 3.1.x)")
	}
	p := &preparer{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, value := top.Content[i].Value, top.Content[i+1]
		if strings.HasPrefix(key, "x-") {
			continue
		}
		if key == "components" && value.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(value.Content); j += 2 {
				ck, cv := value.Content[j].Value, value.Content[j+1]
				switch {
				case ck == "schemas":
					p.schemaMap(cv, "/components/schemas")
				case ck == "examples", strings.HasPrefix(ck, "x-"):
				default:
					p.openAPI(cv, "/components/"+escape(ck))
				}
			}
			continue
		}
		p.openAPI(value, "/"+escape(key))
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, nil, fmt.Errorf("write the prepared document: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), p.rewritten, nil
}

type preparer struct {
	rewritten []string // JSON pointers, in document order
}

// openAPI walks an OpenAPI object (not a schema) looking for the schemas in
// it. Examples and extensions are skipped; `default` is walked, being a
// response here (responses/default), not a default value.
func (p *preparer) openAPI(n *yaml.Node, at string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i].Value, n.Content[i+1]
			switch {
			case strings.HasPrefix(key, "x-"), key == "example", key == "examples":
			case key == "schema":
				p.schema(value, at+"/schema")
			default:
				p.openAPI(value, at+"/"+escape(key))
			}
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			p.openAPI(item, fmt.Sprintf("%s/%d", at, i))
		}
	}
}

// schema rewrites n if it is a boolean schema, and walks its subschemas.
func (p *preparer) schema(n *yaml.Node, at string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!bool" {
			return
		}
		var b bool
		if err := n.Decode(&b); err != nil {
			return
		}
		*n = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
		if !b {
			n.Content = []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "not"},
				{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle},
			}
		}
		p.rewritten = append(p.rewritten, at)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i].Value, n.Content[i+1]
			sub := at + "/" + escape(key)
			switch key {
			case "properties", "patternProperties", "dependentSchemas", "$defs", "definitions":
				p.schemaMap(value, sub)
			case "items", "not", "if", "then", "else", "contains", "propertyNames", "contentSchema":
				p.schema(value, sub)
			case "additionalProperties", "unevaluatedItems", "unevaluatedProperties":
				if value.Kind == yaml.MappingNode {
					p.schema(value, sub)
				}
			case "allOf", "anyOf", "oneOf", "prefixItems":
				if value.Kind == yaml.SequenceNode {
					for j, item := range value.Content {
						p.schema(item, fmt.Sprintf("%s/%d", sub, j))
					}
				}
			}
		}
	}
}

// schemaMap walks a mapping from names to schemas.
func (p *preparer) schemaMap(n *yaml.Node, at string) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		p.schema(n.Content[i+1], at+"/"+escape(n.Content[i].Value))
	}
}

func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// escape makes a key one JSON pointer token (RFC 6901).
func escape(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}
