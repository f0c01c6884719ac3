package checks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// wathqCurrent is the newer API's fullinfo answer, every field optional.
type wathqCurrent struct {
	CRNationalNumber   json.RawMessage `json:"crNationalNumber"`
	CRNumber           json.RawMessage `json:"crNumber"`
	Name               string          `json:"name"`
	IssueDateGregorian string          `json:"issueDateGregorian"`
	HeadquarterCity    string          `json:"headquarterCityName"`
	EntityType         *struct {
		Name     string `json:"name"`
		FormName string `json:"formName"`
	} `json:"entityType"`
	Status *struct {
		ID   *int   `json:"id"`
		Name string `json:"name"`
	} `json:"status"`
	Activities []struct {
		ID   json.RawMessage `json:"id"`
		Name string          `json:"name"`
	} `json:"activities"`
	Parties    []currentParty `json:"parties"`
	Management *struct {
		Managers []currentManager `json:"managers"`
	} `json:"management"`
}

// lookupRow is a row of a Wathq lookup: {id, nameAr, nameEn}.
type lookupRow struct {
	ID     int    `json:"id"`
	NameAr string `json:"nameAr"`
	NameEn string `json:"nameEn"`
}

// readCurrent reads a current answer, its status resolved through the
// register's own lookup (never through constants of ours).
func (w *Wathq) readCurrent(ctx context.Context, body []byte) (RegistryRecord, error) {
	var a wathqCurrent
	if err := json.Unmarshal(body, &a); err != nil {
		return RegistryRecord{}, fmt.Errorf("unreadable answer: %v", err)
	}
	if a.Status == nil || a.Status.ID == nil {
		return RegistryRecord{}, errors.New("the answer has no status id")
	}
	statuses, err := w.lookup(ctx, "status")
	if err != nil {
		return RegistryRecord{}, err
	}
	row, ok := statuses[*a.Status.ID]
	if !ok {
		return RegistryRecord{}, fmt.Errorf("status id %d is not in the register's status lookup", *a.Status.ID)
	}
	rec := RegistryRecord{
		Name:          strings.TrimSpace(a.Name),
		CRNumber:      jsonScalar(a.CRNumber),
		UnifiedNumber: jsonScalar(a.CRNationalNumber),
		StatusID:      registerState(row.NameEn, fmt.Sprint(row.ID)),
		IssueDate:     strings.TrimSpace(a.IssueDateGregorian),
		City:          strings.TrimSpace(a.HeadquarterCity),
	}
	if a.EntityType != nil {
		rec.LegalForm = strings.TrimSpace(firstNonEmpty(a.EntityType.FormName, a.EntityType.Name))
	}
	for _, x := range a.Activities {
		rec.Activities = append(rec.Activities, RegisterActivity{ID: jsonScalar(x.ID), Name: strings.TrimSpace(x.Name)})
	}
	var managers []currentManager
	if a.Management != nil {
		managers = a.Management.Managers
	}
	rec.Parties = w.currentParties(ctx, a.Parties, managers)
	return rec, nil
}

// lookup is GET {base}/commercial-registration/lookup/{name}, read once
// per client and kept (a failed read is tried again next time).
func (w *Wathq) lookup(ctx context.Context, name string) (map[int]lookupRow, error) {
	w.lookupsMu.Lock()
	defer w.lookupsMu.Unlock()
	if rows, ok := w.lookups[name]; ok {
		return rows, nil
	}
	resp, body, _, err := w.get(ctx, strings.TrimSuffix(w.BaseURL, "/")+"/commercial-registration/lookup/"+name)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the %s lookup answered %d: %s", name, resp.StatusCode, wathqErrorText(body))
	}
	var rows []lookupRow
	if err := json.Unmarshal(body, &rows); err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("the %s lookup is unreadable or empty (%v)", name, err)
	}
	if w.lookups == nil {
		w.lookups = map[string]map[int]lookupRow{}
	}
	byID := map[int]lookupRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	w.lookups[name] = byID
	return byID, nil
}
