package passkey

import (
	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
)

// IsDecision reports whether a record is an operator's decision (or a
// closure), which the one rule (Counts) judges: one that says how its
// operator is known, or carries a document or signatures. Every reader of
// a trail judges exactly these, signed or not.
func IsDecision(l auditchain.Link) bool {
	return l.Identity != "" || l.Signatures != "" || l.DecisionDocument != "" || l.Action == string(domain.ActionEndRelationship)
}

// RoleUnsigned is the role of Judge's own check of an unsigned decision
// that does not count.
const RoleUnsigned = "unsigned"

// Judge is Counts as a trail's reader shows it: nothing for a record that
// is no decision; a decision's signature checks (each failed when it does
// not count); and for an unsigned decision that does not count — a
// declared one the account's chain did not accept at its time, a document
// without a signature, a session's record other than a claim — one failed
// check of its own (RoleUnsigned) saying why.
func (a AccountChain) Judge(cfg Config, l auditchain.Link) []Check {
	if !IsDecision(l) {
		return nil
	}
	checks, err := a.Counts(cfg, l)
	if err != nil && len(checks) == 0 {
		return []Check{{Role: RoleUnsigned, OperatorID: l.OperatorID, Problem: domain.ErrorMessage(err)}}
	}
	return checks
}
