package domain

// AccountSnapshot is an account and its countries as the audit trail
// records them (an account.create's After, an account.update's Before and
// After): every setting, whoever changed it (an administrator's command,
// an operator's settings page), so an examiner reading the trail sees the
// whole account at each change. TestAccountSnapshotHoldsEveryField fails
// for a field of Account it leaves out unsaid. An account not yet created
// (ID 0) has no account_id.
func AccountSnapshot(a Account, countries []CountryConfig) map[string]any {
	m := map[string]any{"name": a.Name, "review_interval_days": a.Settings.ReviewIntervalDays, "four_eyes": a.Settings.FourEyes,
		"declared_decisions": a.Settings.DeclaredDecisions, "sla_days": a.Settings.SLADays,
		"extended_retention_years": a.Settings.ExtendedRetentionYears, "ownership_threshold_percent": a.Settings.OwnershipThresholdPercent}
	if a.ID != 0 {
		m["account_id"] = a.ID
	}
	var cs []map[string]any
	for _, c := range countries {
		cs = append(cs, map[string]any{"code": c.CountryCode, "active": c.Active, "registration_pattern": c.RegistrationPattern})
	}
	if len(cs) > 0 {
		m["countries"] = cs
	}
	return m
}
