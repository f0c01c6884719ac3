// Command get-review serves GET /api/v1/entity_reviews/{id} (JSON and Markdown).
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("get-review") }
