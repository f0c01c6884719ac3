// Package mock has fakes of the interfaces the services and handlers take,
// for tests that run in memory: one function field per method, which the
// test sets to the answer it wants (an unset one panics when called, so a
// call the test did not expect fails it). Each fake asserts the interface
// it stands for.
package mock
