// Command admin administers a stage: accounts, countries, API keys,
// operators, webhook endpoints, deliveries and the audit trail, one command
// document per invocation. It has no API route: it is reached through the
// Lambda Invoke API, so IAM decides who may administer and CloudTrail
// records every call.
package main

import "github.com/evs-kyb/evs/shared/boot"

func main() { boot.Start("admin") }
