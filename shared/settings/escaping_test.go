package settings_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/webpage"
)

// TestEscaping: what others wrote — an endpoint's URL and description, a
// receiver's answer and error, a reason, a name, the query — is text on
// every page that shows it, never markup.
func TestEscaping(t *testing.T) {
	w := newWorld(t)
	hostileURL := `https://hooks.example.com/"><script>alert('url')</script>`
	ep := w.endpoint(t, hostileURL, `<img src=x onerror=alert('desc')>`)
	d := w.deliver(t, ep.ID, 500, `</pre><script>alert('body')</script>`, `<svg onload=alert('err')>`)
	if a := w.post(roleAll, "/settings/deliveries/"+d.ID+"/redeliver", url.Values{"reason": {`<script>alert('reason')</script>`}}); a.StatusCode != http.StatusSeeOther {
		t.Fatalf("redeliver: %d", a.StatusCode)
	}
	// An operator whose name is markup.
	s := w.session(roleAll)
	s.Operator.Name = `<script>alert('name')</script>`
	named := w.portal.start(s)

	e := fmt.Sprintf("/settings/endpoints/%d", ep.ID)
	pages := []struct {
		name  string
		get   func() answer
		shows string // an escaped payload the page must show
	}{
		{"endpoints", func() answer { return w.get(roleAll, "/settings/endpoints") }, `&lt;script&gt;alert(&#39;url&#39;)`},
		{"endpoint", func() answer { return w.get(roleAll, e) }, `&lt;img src=x onerror=alert(&#39;desc&#39;)&gt;`},
		{"edit", func() answer { return w.get(roleAll, e+"/edit") }, `value="https://hooks.example.com/&#34;&gt;&lt;script&gt;`},
		{"delete", func() answer { return w.get(roleAll, e+"/delete") }, `&lt;script&gt;alert(&#39;url&#39;)`},
		{"deliveries", func() answer { return w.get(roleAll, "/settings/deliveries") }, `&lt;script&gt;alert(&#39;url&#39;)`},
		{"delivery", func() answer { return w.get(roleAll, "/settings/deliveries/"+d.ID) }, `&lt;/pre&gt;&lt;script&gt;alert(&#39;body&#39;)`},
		{"delivery error", func() answer { return w.get(roleAll, "/settings/deliveries/"+d.ID) }, `&lt;svg onload=alert(&#39;err&#39;)&gt;`},
		{"redelivery", func() answer { return w.get(roleAll, "/settings/deliveries/"+d.ID+".2") }, `&lt;script&gt;alert(&#39;reason&#39;)`},
		{"filter echoed", func() answer {
			return w.get(roleAll, "/settings/deliveries?from="+url.QueryEscape(`"><script>alert('q')</script>`))
		}, `value="&#34;&gt;&lt;script&gt;alert(&#39;q&#39;)`},
		{"form echoed", func() answer {
			return w.post(roleAll, "/settings/endpoints", url.Values{"url": {`http://127.0.0.1/"><script>alert('form')</script>`}, "description": {`<b>x</b>`}})
		}, `&lt;script&gt;alert(&#39;form&#39;)`},
		{"created", func() answer {
			return w.post(roleAll, "/settings/endpoints", url.Values{"url": {hostileURL + "2"}, "events": {"entity_review.approved"}})
		}, `&lt;script&gt;alert(&#39;url&#39;)`},
		{"operator name", func() answer {
			r := httptest.NewRequest(http.MethodGet, "/settings/countries", nil)
			r.AddCookie(&http.Cookie{Name: webpage.CookieName, Value: named})
			return w.do(r)
		}, `&lt;script&gt;alert(&#39;name&#39;)`},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			a := p.get()
			if a.StatusCode >= 500 {
				t.Fatalf("status %d", a.StatusCode)
			}
			if !strings.Contains(a.body, p.shows) {
				t.Errorf("does not show %s:\n%s", p.shows, a.body)
			}
			for _, raw := range []string{"<script>alert", "<img src=x", "<svg onload", `"><script`, "</pre><script"} {
				if strings.Contains(a.body, raw) {
					t.Errorf("raw %q on the page", raw)
				}
			}
			checkMarkup(t, a.body)
		})
	}
}
