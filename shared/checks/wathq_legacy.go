package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// wathqLegacy is the legacy API's fullinfo answer (v4 and v5): flat
// camelCase fields at the top level, every one optional (sandbox records
// are sparse).
type wathqLegacy struct {
	CRName         string          `json:"crName"`
	CRNumber       json.RawMessage `json:"crNumber"`
	CREntityNumber json.RawMessage `json:"crEntityNumber"`
	CRMainNumber   json.RawMessage `json:"crMainNumber"`
	IssueDate      string          `json:"issueDate"`
	ExpiryDate     string          `json:"expiryDate"`
	BusinessType   *idName         `json:"businessType"`
	Status         *struct {
		ID     json.RawMessage `json:"id"`
		Name   string          `json:"name"`
		NameEn string          `json:"nameEn"`
	} `json:"status"`
	Location   *idName `json:"location"`
	Activities *struct {
		Description string `json:"description"`
		ISIC        []struct {
			ID     json.RawMessage `json:"id"`
			Name   string          `json:"name"`
			NameEn string          `json:"nameEn"`
		} `json:"isic"`
	} `json:"activities"`
	Parties []legacyParty `json:"parties"`
}

type idName struct {
	ID   json.RawMessage `json:"id"`
	Name string          `json:"name"`
}

// readLegacy reads a legacy answer; one with no status is not an answer
// about a register.
func readLegacy(body []byte) (RegistryRecord, error) {
	var a wathqLegacy
	if err := json.Unmarshal(body, &a); err != nil {
		return RegistryRecord{}, fmt.Errorf("unreadable answer: %v", err)
	}
	if a.Status == nil {
		return RegistryRecord{}, errors.New("the answer has no status")
	}
	rec := RegistryRecord{
		Name:          strings.TrimSpace(a.CRName),
		CRNumber:      jsonScalar(a.CRNumber),
		UnifiedNumber: jsonScalar(a.CREntityNumber),
		StatusID:      registerState(a.Status.NameEn, jsonScalar(a.Status.ID)),
		ExpiryHijri:   strings.TrimSpace(a.ExpiryDate),
		IssueDate:     strings.TrimSpace(a.IssueDate),
	}
	if a.Location != nil {
		rec.City = strings.TrimSpace(a.Location.Name)
	}
	if a.BusinessType != nil {
		rec.LegalForm = strings.TrimSpace(a.BusinessType.Name)
	}
	if a.Activities != nil {
		for _, x := range a.Activities.ISIC {
			rec.Activities = append(rec.Activities, RegisterActivity{ID: jsonScalar(x.ID), Name: strings.TrimSpace(firstNonEmpty(x.Name, x.NameEn))})
		}
	}
	rec.Parties = legacyParties(a.Parties)
	return rec, nil
}
