<?php
// Sign Domain Sales partner API requests and verify webhook deliveries (PHP 7.3+, no extensions
// beyond the default build: hash, json, streams).
//
// The recipe is spec/docs/signing.md; the known answers are spec/vectors/signing.json. Copy the
// functions above the "command line" marker into your code: canonical_query, canonical_string,
// sign_request and signed_headers sign a request; verify_webhook checks a delivery.
//
// Usage:
//   php domain_sales_signing.php request METHOD TARGET [BODY]
//       env SERVICE_BASE_URL, SERVICE_KEY_ID, SERVICE_SECRET; IDEMPOTENCY_KEY (optional, POST /orders).
//       Signs and sends exactly BODY's bytes; prints the HTTP status, then the response body.
//   php domain_sales_signing.php verify-webhook SECRET SIGNATURE_HEADER < raw-body
//       Prints "valid" (exit 0) or "invalid" (exit 1).
//   php domain_sales_signing.php vectors path/to/signing.json
//       Prints what this code computes for every vector, one JSON object per line.

declare(strict_types=1);

const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The API answers a malformed query with HTTP 400 validation_error. */
class MalformedQuery extends InvalidArgumentException
{
}

/**
 * Strict percent-decoding: only %XX escapes, "+" stays a plus, the result must be valid UTF-8.
 * rawurldecode/urldecode are NOT suitable: they keep malformed escapes and do not check UTF-8
 * (and urldecode turns "+" into a space).
 */
function decode_component(string $raw): string
{
    $decoded = preg_replace_callback(
        '/%(?:([0-9A-Fa-f]{2})|)/',
        static function (array $m): string {
            if (!isset($m[1]) || $m[1] === '') {
                throw new MalformedQuery('a "%" not followed by two hex digits');
            }
            return chr(hexdec($m[1]));
        },
        $raw
    );
    // The /u modifier accepts only valid UTF-8: no overlongs, no surrogates, nothing above U+10FFFF.
    if (preg_match('//u', $decoded) !== 1) {
        throw new MalformedQuery('the decoded bytes are not valid UTF-8');
    }
    return $decoded;
}

/** UTF-8 bytes; only A-Z a-z 0-9 - _ . ~ literal, every other byte as %XX in uppercase. */
function encode_component(string $text): string
{
    return rawurlencode($text); // RFC 3986 since PHP 7.3: exactly the unreserved set, uppercase hex
}

/** The raw query string (after "?", never $_GET or parse_str) in canonical form. */
function canonical_query(string $rawQuery): string
{
    $pairs = [];
    foreach (explode('&', $rawQuery) as $part) {
        if ($part === '') {
            continue;
        }
        $kv = explode('=', $part, 2); // split at the first "="; no "=" gives an empty value
        $pairs[] = [decode_component($kv[0]), decode_component($kv[1] ?? '')];
    }
    // strcmp compares bytes; on UTF-8 that is code point order (not UTF-16 units).
    usort($pairs, static function (array $a, array $b): int {
        return strcmp($a[0], $b[0]) ?: strcmp($a[1], $b[1]);
    });
    return implode('&', array_map(static function (array $p): string {
        return encode_component($p[0]) . '=' . encode_component($p[1]);
    }, $pairs));
}

function body_sha256_hex(string $method, string $body): string
{
    return ($method === 'GET' || $method === 'HEAD' || $body === '') ? EMPTY_BODY_SHA256 : hash('sha256', $body);
}

/** Six lines: METHOD, PATH (as sent), canonical query, timestamp, nonce, body SHA-256. */
function canonical_string(string $method, string $path, string $rawQuery, string $timestamp, string $nonce, string $body): string
{
    $method = strtoupper($method);
    return implode("\n", [$method, $path, canonical_query($rawQuery), $timestamp, $nonce, body_sha256_hex($method, $body)]);
}

/** The X-Service-Signature header value: v1= and the lowercase hex HMAC-SHA256. */
function sign_request(string $secret, string $canonical): string
{
    return 'v1=' . hash_hmac('sha256', $canonical, $secret);
}

/** A random (CSPRNG) UUID v4 for X-Service-Nonce. */
function uuid4(): string
{
    $b = random_bytes(16);
    $b[6] = chr((ord($b[6]) & 0x0f) | 0x40);
    $b[8] = chr((ord($b[8]) & 0x3f) | 0x80);
    return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($b), 4));
}

/** The four X-Service-* headers for one attempt (a retry calls this again: new nonce). */
function signed_headers(string $keyId, string $secret, string $method, string $target, string $body = ''): array
{
    $parts = explode('?', $target, 2);
    $timestamp = (string) time(); // whole seconds
    $nonce = uuid4();
    return [
        'X-Service-Key-Id' => $keyId,
        'X-Service-Timestamp' => $timestamp,
        'X-Service-Nonce' => $nonce,
        'X-Service-Signature' => sign_request($secret, canonical_string($method, $parts[0], $parts[1] ?? '', $timestamp, $nonce, $body)),
    ];
}

function webhook_signature(string $secret, string $body): string
{
    return hash_hmac('sha256', $body, $secret);
}

/** Whether X-Service-Signature (bare lowercase hex, no v1=) matches the raw body (file_get_contents('php://input')). */
function verify_webhook(string $secret, string $body, string $signatureHeader): bool
{
    return hash_equals(webhook_signature($secret, $body), $signatureHeader);
}

// --- command line ----------------------------------------------------------------------------

/** Sends $body's exact bytes; $signBody (a test aid) signs other bytes than those sent. */
function send(string $method, string $target, string $body, ?string $signBody): array
{
    $method = strtoupper($method);
    $headers = signed_headers(getenv('SERVICE_KEY_ID'), getenv('SERVICE_SECRET'), $method, $target, $signBody ?? $body);
    if ($body !== '') {
        $headers['Content-Type'] = 'application/json';
    }
    if ((string) getenv('IDEMPOTENCY_KEY') !== '') {
        $headers['Idempotency-Key'] = getenv('IDEMPOTENCY_KEY');
    }
    $lines = [];
    foreach ($headers as $name => $value) {
        $lines[] = "$name: $value";
    }
    $context = stream_context_create(['http' => [
        'method' => $method,
        'header' => $lines,
        'content' => ($method === 'GET' || $method === 'HEAD') ? '' : $body,
        'ignore_errors' => true, // 4xx and 5xx still carry the API's Error body
        'follow_location' => 0,
    ]]);
    $content = file_get_contents(rtrim(getenv('SERVICE_BASE_URL'), '/') . $target, false, $context);
    $status = preg_match('#^HTTP/\S+ (\d{3})#', $http_response_header[0] ?? '', $m) ? (int) $m[1] : 0;
    return [$status, $content === false ? '' : $content];
}

function vectors(string $path): void
{
    $doc = json_decode(file_get_contents($path), true, 512, JSON_THROW_ON_ERROR);
    $print = static function (string $kind, string $name, string $result): void {
        echo json_encode(['kind' => $kind, 'name' => $name, 'result' => $result], JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\n";
    };
    foreach ($doc['canonical_query'] as $c) {
        $print('canonical_query', $c['name'], canonical_query($c['query']));
    }
    foreach ($doc['invalid_query'] ?? [] as $c) {
        try {
            $result = canonical_query($c['query']);
        } catch (MalformedQuery $e) {
            $result = 'rejected';
        }
        $print('invalid_query', $c['name'], $result);
    }
    foreach ($doc['signatures'] as $c) {
        $canonical = canonical_string($c['method'], $c['path'], $c['query'], $c['timestamp'], $c['nonce'], $c['body']);
        $print('signature', $c['name'], sign_request($c['secret'], $canonical));
    }
    foreach ($doc['webhooks'] as $c) {
        $print('webhook', $c['name'], webhook_signature($c['secret'], $c['body']));
    }
}

function main(array $argv): int
{
    $command = $argv[1] ?? '';
    if ($command === 'vectors' && count($argv) === 3) {
        vectors($argv[2]);
        return 0;
    }
    if ($command === 'request' && (count($argv) === 4 || count($argv) === 5)) {
        $signBody = getenv('SIGN_BODY');
        [$status, $content] = send($argv[2], $argv[3], $argv[4] ?? '', $signBody === false ? null : $signBody);
        echo $status, "\n", $content;
        return 0;
    }
    if ($command === 'verify-webhook' && count($argv) === 4) {
        $valid = verify_webhook($argv[2], file_get_contents('php://stdin'), $argv[3]);
        echo $valid ? "valid\n" : "invalid\n";
        return $valid ? 0 : 1;
    }
    fwrite(STDERR, "usage: request METHOD TARGET [BODY] | verify-webhook SECRET SIGNATURE < body | vectors FILE\n");
    return 2;
}

exit(main($argv));
