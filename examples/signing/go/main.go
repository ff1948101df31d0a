// The command line around signing.go: `vectors FILE`, `request METHOD TARGET [BODY]` and
// `verify-webhook SECRET SIGNATURE < body`. See README.md.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch args := os.Args[2:]; os.Args[1] {
	case "vectors":
		if len(args) != 1 {
			usage()
		}
		check(runVectors(args[0]))
	case "request":
		if len(args) < 2 || len(args) > 3 {
			usage()
		}
		var body *string
		if len(args) == 3 {
			body = &args[2]
		}
		check(runRequest(args[0], args[1], body))
	case "verify-webhook":
		if len(args) != 2 {
			usage()
		}
		raw, err := io.ReadAll(os.Stdin)
		check(err)
		if VerifyWebhook(args[0], raw, args[1]) {
			fmt.Println("valid")
			if id, err := EventID(raw); err == nil {
				fmt.Fprintf(os.Stderr, "event id %s: deduplicate on it\n", id)
			}
			return
		}
		fmt.Println("invalid")
		os.Exit(1)
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go run . vectors signing.json | request METHOD TARGET [BODY] | verify-webhook SECRET SIGNATURE < body")
	os.Exit(2)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// runVectors prints one JSON line per case of spec/vectors/signing.json with the value computed here.
func runVectors(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		CanonicalQuery []map[string]string `json:"canonical_query"`
		InvalidQuery   []map[string]string `json:"invalid_query"`
		Signatures     []map[string]string `json:"signatures"`
		Webhooks       []map[string]string `json:"webhooks"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	emit := func(kind, name, result string) error {
		return out.Encode(map[string]string{"kind": kind, "name": name, "result": result})
	}
	for _, c := range doc.CanonicalQuery {
		result, err := CanonicalQuery(c["query"])
		if err != nil {
			result = "rejected"
		}
		if err := emit("canonical_query", c["name"], result); err != nil {
			return err
		}
	}
	for _, c := range doc.InvalidQuery {
		result, err := CanonicalQuery(c["query"])
		if errors.Is(err, ErrMalformedQuery) {
			result = "rejected"
		}
		if err := emit("invalid_query", c["name"], result); err != nil {
			return err
		}
	}
	for _, c := range doc.Signatures {
		canonical, err := CanonicalString(c["method"], c["path"], c["query"], c["timestamp"], c["nonce"], []byte(c["body"]))
		result := "rejected"
		if err == nil {
			result = SignatureHeader(c["secret"], canonical)
		}
		if err := emit("signature", c["name"], result); err != nil {
			return err
		}
	}
	for _, c := range doc.Webhooks {
		if err := emit("webhook", c["name"], WebhookSignature(c["secret"], []byte(c["body"]))); err != nil {
			return err
		}
	}
	return nil
}

// runRequest signs and sends one request to SERVICE_BASE_URL; prints the status, then the body.
// With SIGN_BODY set it signs that instead of BODY (to show that a tampered body is refused).
func runRequest(method, target string, body *string) error {
	base, err := url.Parse(strings.TrimRight(os.Getenv("SERVICE_BASE_URL"), "/"))
	if err != nil {
		return err
	}
	path, rawQuery, _ := strings.Cut(target, "?")
	var sent []byte
	if body != nil {
		sent = []byte(*body)
	}
	signed := sent
	if s, ok := os.LookupEnv("SIGN_BODY"); ok {
		signed = []byte(s)
	}
	headers, err := SignedHeaders(os.Getenv("SERVICE_KEY_ID"), os.Getenv("SERVICE_SECRET"), method, path, rawQuery, signed)
	if err != nil {
		return err
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(sent)
	}
	req, err := http.NewRequest(method, base.String(), reader)
	if err != nil {
		return err
	}
	// Opaque and RawQuery go on the request line byte for byte: net/http would otherwise
	// re-encode the path, and the server signs what it receives.
	req.URL.Opaque = base.EscapedPath() + path
	req.URL.RawQuery = rawQuery
	for name, value := range headers {
		req.Header.Set(name, value)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key := os.Getenv("IDEMPOTENCY_KEY"); key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	fmt.Println(res.StatusCode)
	_, err = os.Stdout.Write(answer)
	return err
}
