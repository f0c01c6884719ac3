// Command get-entity serves GET /api/v1/entities/{id} (JSON and Markdown).
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("get-entity") }
