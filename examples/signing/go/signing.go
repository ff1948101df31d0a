// Package main is the Go reference signer of the Domain Sales partner API (v1 request signatures
// and webhook signatures), standard library only. Copy the functions of this file into your code;
// main.go is only the command line that proves them against the vectors and a live sandbox.
// The recipe is spec/docs/signing.md.
package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrMalformedQuery: the API answers such a query with 400 validation_error before it looks at
// the signature, so a signer must refuse it too rather than guess.
var ErrMalformedQuery = errors.New("malformed query string")

const emptyBodySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// decodeComponent decodes %XX escapes only ("+" stays a plus). The result must be valid UTF-8:
// utf8.ValidString refuses truncated sequences, overlongs, encoded surrogates and > U+10FFFF.
func decodeComponent(raw string) (string, error) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] != '%' {
			out = append(out, raw[i])
			continue
		}
		if i+2 >= len(raw) || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
			return "", fmt.Errorf("%w: bad escape at offset %d", ErrMalformedQuery, i)
		}
		b, _ := strconv.ParseUint(raw[i+1:i+3], 16, 8)
		out = append(out, byte(b))
		i += 2
	}
	if !utf8.Valid(out) {
		return "", fmt.Errorf("%w: %q is not valid UTF-8 once decoded", ErrMalformedQuery, raw)
	}
	return string(out), nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// encodeComponent: UTF-8 bytes, only A-Z a-z 0-9 - _ . ~ literal, every other byte as uppercase %XX.
func encodeComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// CanonicalQuery builds line 3 from the raw query (after the first "?", never a parsed url.Values).
func CanonicalQuery(rawQuery string) (string, error) {
	type pair struct{ key, value string }
	var pairs []pair
	for _, part := range strings.Split(rawQuery, "&") {
		if part == "" {
			continue
		}
		rawKey, rawValue := part, ""
		if eq := strings.IndexByte(part, '='); eq >= 0 {
			rawKey, rawValue = part[:eq], part[eq+1:]
		}
		key, err := decodeComponent(rawKey)
		if err != nil {
			return "", err
		}
		value, err := decodeComponent(rawValue)
		if err != nil {
			return "", err
		}
		pairs = append(pairs, pair{key, value})
	}
	// Go compares strings byte by byte: UTF-8 byte order is Unicode code point order.
	sort.SliceStable(pairs, func(i, j int) bool {
		if pairs[i].key != pairs[j].key {
			return pairs[i].key < pairs[j].key
		}
		return pairs[i].value < pairs[j].value
	})
	encoded := make([]string, len(pairs))
	for i, p := range pairs {
		encoded[i] = encodeComponent(p.key) + "=" + encodeComponent(p.value)
	}
	return strings.Join(encoded, "&"), nil
}

// CanonicalString is the six lines that are signed. path is the raw path as sent (escapes untouched).
func CanonicalString(method, path, rawQuery, timestamp, nonce string, body []byte) (string, error) {
	method = asciiUpper(method)
	query, err := CanonicalQuery(rawQuery)
	if err != nil {
		return "", err
	}
	bodyHash := emptyBodySHA256
	if method != "GET" && method != "HEAD" && len(body) > 0 {
		sum := sha256.Sum256(body)
		bodyHash = hex.EncodeToString(sum[:])
	}
	return strings.Join([]string{method, path, query, timestamp, nonce, bodyHash}, "\n"), nil
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func hmacHex(secret string, message []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(message)
	return hex.EncodeToString(mac.Sum(nil))
}

// SignatureHeader is the X-Service-Signature value of a request: "v1=" + lowercase hex.
func SignatureHeader(secret, canonical string) string {
	return "v1=" + hmacHex(secret, []byte(canonical))
}

// SignedHeaders returns the four authentication headers for one attempt (a fresh nonce and
// timestamp every time, retries included).
func SignedHeaders(keyID, secret, method, path, rawQuery string, body []byte) (map[string]string, error) {
	timestamp := strconv.FormatInt(time.Now().Unix(), 10) // seconds, not milliseconds
	nonce, err := uuidV4()
	if err != nil {
		return nil, err
	}
	canonical, err := CanonicalString(method, path, rawQuery, timestamp, nonce, body)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"X-Service-Key-Id":    keyID,
		"X-Service-Timestamp": timestamp,
		"X-Service-Nonce":     nonce,
		"X-Service-Signature": SignatureHeader(secret, canonical),
	}, nil
}

func uuidV4() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil { // crypto/rand: a CSPRNG
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// WebhookSignature is a delivery's X-Service-Signature: lowercase hex HMAC-SHA256 of the raw body
// bytes, keyed with the registered webhook secret; no "v1=" prefix.
func WebhookSignature(secret string, rawBody []byte) string {
	return hmacHex(secret, rawBody)
}

// VerifyWebhook checks the header over the bytes as received, before any JSON parsing, in
// constant time. Then deduplicate on the event id (X-Service-Event-Id, the body's "id").
func VerifyWebhook(secret string, rawBody []byte, header string) bool {
	return secret != "" && hmac.Equal([]byte(WebhookSignature(secret, rawBody)), []byte(header))
}

// EventID is the delivery's "id" (the same as its X-Service-Event-Id header): delivery is at
// least once, so remember the ids you have processed and skip a repeat. Parse only a body that
// VerifyWebhook accepted.
func EventID(rawBody []byte) (string, error) {
	var event struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(rawBody, &event); err != nil {
		return "", err
	}
	return event.ID, nil
}
