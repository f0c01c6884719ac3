package webpage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
)

// Static are an area's stylesheets and scripts, served from the binary;
// each URL carries a digest of its file, so a changed file gets a new URL
// and a day's caching never serves an old file to a new page.
type Static map[string]staticFile

type staticFile struct {
	body        []byte
	contentType string
	version     string
}

// LoadStatic reads the .css and .js files of dir in fsys (an embedded
// tree: a failure is a build mistake, so it panics naming the area).
func LoadStatic(area string, fsys fs.FS, dir string) Static {
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		panic(fmt.Sprintf("%s: embedded static files: %v", area, err))
	}
	out := Static{}
	for _, e := range entries {
		b, err := fs.ReadFile(fsys, dir+"/"+e.Name())
		if err != nil {
			panic(fmt.Sprintf("%s: embedded static file: %v", area, err))
		}
		sum := sha256.Sum256(b)
		out[e.Name()] = staticFile{body: b, contentType: types[path.Ext(e.Name())], version: hex.EncodeToString(sum[:6])}
	}
	return out
}

// Serve writes the named file, reporting false (nothing written) for one
// it does not hold.
func (s Static) Serve(w http.ResponseWriter, name string) bool {
	f, ok := s[name]
	if !ok || f.contentType == "" {
		return false
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Content-Type", f.contentType)
	w.Write(f.body)
	return true
}

// URL is a file's address under the area's base path, with its version.
func (s Static) URL(base, name string) string {
	return base + "/static/" + name + "?v=" + s[name].version
}

// add takes another area's files beside these; two files of one name are
// a build mistake.
func (s Static) add(more Static) {
	for name, f := range more {
		if _, ok := s[name]; ok {
			panic(fmt.Sprintf("webpage: two static files named %s", name))
		}
		s[name] = f
	}
}
