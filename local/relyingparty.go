package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/passkey"
)

// The console's relying party locally: localhost (go-webauthn refuses an
// IP address as RP id) on the port up serves. up records each origin it
// serves in the demo folder (console.json), and every local command reads
// the record, as it finds the running system's data folders: a decision
// signed on a console served on another port (PORT=3107) verifies from a
// shell that never set PORT. PASSKEY_RP_ID and PASSKEY_ORIGINS, when set,
// say otherwise for all of them.

// servedOrigin is the console's origin when up serves on port.
func servedOrigin(port string) string { return "http://localhost:" + port }

// localPasskeys is the relying party of the local system: the variables'
// when set; else localhost with every origin up has served (and the
// default port's, 3000, or PORT's, before any up ran).
func localPasskeys() passkey.Config {
	if cfg, err := boot.PasskeysFromEnv(os.Getenv); err == nil && cfg.RPID != "" {
		return cfg
	}
	cfg := passkey.Config{RPID: "localhost", RPDisplayName: "EVS"}
	if origins, err := servedOrigins(); err == nil && len(origins) > 0 {
		cfg.Origins = origins
		return cfg
	}
	cfg.Origins = []string{servedOrigin(envDefault("PORT", "3000"))}
	return cfg
}

// servedOrigins are the origins up recorded; none before any up ran.
func servedOrigins() ([]string, error) {
	path, err := relyingPartyPath()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec struct {
		Origins []string `json:"origins"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec.Origins, nil
}

// rememberOrigin adds the origin up is about to serve to the record, beside
// those served before (their signatures stay verifiable).
func rememberOrigin(origin string) error {
	origins, err := servedOrigins()
	if err != nil {
		return err
	}
	if slices.Contains(origins, origin) {
		return nil
	}
	path, err := relyingPartyPath()
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(map[string]any{"rp_id": "localhost", "origins": append(origins, origin)}, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func relyingPartyPath() (string, error) {
	dir, err := demoDir()
	return filepath.Join(dir, "console.json"), err
}
