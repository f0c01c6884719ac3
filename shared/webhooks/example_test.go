package webhooks_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/evs-kyb/evs/shared/webhooks"
)

// Sign makes the X-Service-Signature of an outbound webhook; Verify is the
// check a receiver makes. The scheme is GitHub's X-Hub-Signature-256, so
// GitHub's published test vector holds.
func ExampleSign() {
	secret, body := []byte("It's a Secret to Everybody"), []byte("Hello, World!")
	sig := webhooks.Sign(secret, body)
	fmt.Println(sig)
	fmt.Println(webhooks.Verify(secret, body, sig))
	fmt.Println(webhooks.Verify(secret, []byte("Hello, World?"), sig))
	// Output:
	// sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17
	// true
	// false
}

// VerifyStandard checks a Standard Webhooks request, as the screening
// provider posts them to us: the three webhook-* headers and the raw body.
// The values are the specification's own example.
func ExampleVerifyStandard() {
	secrets, err := webhooks.ParseSecrets("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		fmt.Println(err)
		return
	}
	id, ts, body := "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`)
	sig := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	sent := time.Unix(1614265330, 0)

	fmt.Println(webhooks.VerifyStandard(secrets, id, ts, sig, body, sent.Add(time.Minute), webhooks.DefaultTolerance))
	fmt.Println(webhooks.VerifyStandard(secrets, id, ts, sig, body, sent.Add(time.Hour), webhooks.DefaultTolerance))
	fmt.Println(webhooks.VerifyStandard(secrets, id, ts, sig, []byte(`{"test": 0}`), sent, webhooks.DefaultTolerance))
	// Output:
	// <nil>
	// webhook-timestamp is too far from the current time
	// no signature matches
}

// NewClient is the client deliveries are posted with. It refuses internal
// addresses when it connects, after DNS, so a subscriber's URL cannot reach
// our network; local runs allow loopback explicitly.
func ExampleNewClient() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	body := []byte(`{"event_type":"entity_review.approved"}`)
	post := func(c *http.Client) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		req.Header.Set(webhooks.SignatureHeader, webhooks.Sign([]byte("endpoint secret"), body))
		resp, err := c.Do(req)
		var blocked *webhooks.BlockedAddressError
		switch {
		case errors.As(err, &blocked):
			fmt.Println("refused:", blocked.Reason)
		case err != nil:
			fmt.Println("error:", err)
		default:
			resp.Body.Close()
			fmt.Println(resp.StatusCode)
		}
	}

	post(webhooks.NewClient(webhooks.ClientOptions{}))
	loopback, _ := webhooks.ParseAllowList("127.0.0.0/8")
	post(webhooks.NewClient(webhooks.ClientOptions{Allow: loopback}))
	// Output:
	// refused: loopback (127.0.0.0/8)
	// 204
}

// CheckURL judges a webhook URL when a person configures it, with a message
// for them; the client checks again at every connection.
func ExampleCheckURL() {
	for _, u := range []string{
		"https://hooks.example.com/evs",
		"http://hooks.example.com/evs",
		"https://169.254.169.254/latest/meta-data",
		"https://localhost:8443/hook",
	} {
		if err := webhooks.CheckURL(u, webhooks.AllowList{}); err != nil {
			fmt.Println(u, "->", err)
			continue
		}
		fmt.Println(u, "-> ok")
	}
	// Output:
	// https://hooks.example.com/evs -> ok
	// http://hooks.example.com/evs -> url must use https
	// https://169.254.169.254/latest/meta-data -> url must not point to an internal address: 169.254.169.254 is link-local (169.254.0.0/16, incl. the cloud metadata service)
	// https://localhost:8443/hook -> url must not point to an internal address: localhost is this machine
}
