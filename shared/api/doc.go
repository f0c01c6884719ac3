// Package api is the service's HTTP API: one thin http.Handler per function
// (the routes are deploy's), the JSON and Markdown views of the contract,
// Accept negotiation, and the one table that maps error codes to HTTP
// statuses. Each handler says what it needs in a small interface of its own;
// shared/boot gives it the store.
package api
