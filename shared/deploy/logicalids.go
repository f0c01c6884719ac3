package deploy

// SecretLogicalID is a secret's CloudFormation logical id.
func SecretLogicalID(secretID string) string { return secretID + "Secret" }

// TableLogicalID is a table's CloudFormation logical id, the same in the CDK
// stack and in template.yaml: "entities" is "EntitiesTable".
func TableLogicalID(id string) string {
	out := []byte{}
	upper := true
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c == '_' {
			upper = true
			continue
		}
		if upper && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		upper = false
		out = append(out, c)
	}
	return string(out) + "Table"
}
