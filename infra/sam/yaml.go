package sam

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// The template is built as yaml.Node trees, so that keys keep the order they
// are written in and comments sit where they explain something. These
// helpers keep the builders short: Map and Flow take key/value pairs, values
// are turned into nodes by node.

type yamlNode = yaml.Node

// Pair is one key of a mapping, with an optional comment above it.
type Pair struct {
	Key     string
	Value   any
	Comment string
	// Blank puts an empty line above the key (and its comment).
	Blank bool
}

// KV is a Pair without a comment.
func KV(key string, value any) Pair { return Pair{Key: key, Value: value} }

// Note adds a comment above the key, one "# " line per line of text.
func (p Pair) Note(text string) Pair { p.Comment = text; return p }

// Spaced puts an empty line above the key.
func (p Pair) Spaced() Pair { p.Blank = true; return p }

// Map is a block mapping.
func Map(pairs ...Pair) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range pairs {
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p.Key}
		var head []string
		if p.Blank {
			head = append(head, blankMark)
		}
		if p.Comment != "" {
			for _, line := range strings.Split(p.Comment, "\n") {
				head = append(head, strings.TrimRight("# "+line, " "))
			}
		}
		k.HeadComment = strings.Join(head, "\n")
		n.Content = append(n.Content, k, node(p.Value))
	}
	return n
}

// blankMark is a comment line Encode turns into an empty line (the encoder
// writes no empty lines of its own).
const blankMark = "#~blank~"

// Flow is a mapping written on one line: { A: x, B: y }.
func Flow(pairs ...Pair) *yaml.Node {
	n := Map(pairs...)
	n.Style = yaml.FlowStyle
	return n
}

// List is a block sequence.
func List(items ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, it := range items {
		n.Content = append(n.Content, node(it))
	}
	return n
}

// FlowList is a sequence written on one line: [a, b].
func FlowList(items ...any) *yaml.Node {
	n := List(items...)
	n.Style = yaml.FlowStyle
	return n
}

// Strings is a one-line sequence of strings.
func Strings(items []string) *yaml.Node {
	out := make([]any, len(items))
	for i, s := range items {
		out[i] = s
	}
	return FlowList(out...)
}

// Ref, GetAtt, Sub, If and Equals are CloudFormation's intrinsic functions
// in their short forms (!Ref X, !GetAtt X.Attr, !Sub "…", !If […],
// !Equals […]).
func Ref(logicalID string) *yaml.Node { return tagged("!Ref", logicalID) }

// GetAtt is !GetAtt logicalID.attr.
func GetAtt(logicalID, attr string) *yaml.Node { return tagged("!GetAtt", logicalID+"."+attr) }

// Sub is !Sub text.
func Sub(text string) *yaml.Node {
	n := tagged("!Sub", text)
	n.Style = yaml.DoubleQuotedStyle
	return n
}

// If is !If [condition, whenTrue, whenFalse].
func If(condition string, whenTrue, whenFalse any) *yaml.Node {
	return taggedList("!If", condition, whenTrue, whenFalse)
}

// Equals is !Equals [a, b].
func Equals(a, b any) *yaml.Node { return taggedList("!Equals", a, b) }

// taggedList is an intrinsic function whose argument is a list, on one line.
func taggedList(tag string, items ...any) *yaml.Node {
	n := FlowList(items...)
	n.Tag = tag
	return n
}

func tagged(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}

// Quoted is a string always written in double quotes ("2010-09-09", "0.7"),
// where a plain scalar could be read as another type by some tool.
func Quoted(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}

func node(v any) *yaml.Node {
	switch x := v.(type) {
	case *yaml.Node:
		return x
	case string:
		// !!str: the encoder quotes whatever would otherwise read as
		// another type ("true", "0.7", "*").
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case []string:
		return Strings(x)
	}
	panic(fmt.Sprintf("sam: no YAML node for %T", v))
}

// Encode writes the document under a header comment, two spaces an
// indent, lines as long as they are (no folding), no trailing blanks.
func Encode(header string, doc *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	for _, line := range strings.Split(header, "\n") {
		b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
	}
	b.WriteString("\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("sam: encoding the template: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("sam: encoding the template: %w", err)
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == blankMark {
			l = ""
		}
		lines[i] = strings.TrimRight(l, " ")
	}
	return []byte(strings.Join(lines, "\n")), nil
}
